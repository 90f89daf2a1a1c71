public import Dispatch

// Key-path forms of the collection APIs (RealmSwift's): each turns its key paths into property
// names once (KeyPathRecorder, cached per key path) and calls the string form, so both behave
// the same.

extension SortDescriptor {
    /// A sort key from a key path: `SortDescriptor(keyPath: \Dog.age, ascending: false)`.
    public init<Root: Object>(keyPath: PartialKeyPath<Root>, ascending: Bool = true) {
        self.init(keyPath: KeyPathRecorder.name(keyPath), ascending: ascending)
    }
}

extension RealmCollection {
    /// The objects sorted by a property: `dogs.sorted(by: \.age, ascending: false)`.
    public func sorted<T: PersistableValue>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element> {
        queryBase.sorted(by: [SortDescriptor(keyPath: KeyPathRecorder.name(keyPath), ascending: ascending)])
    }

    /// The first object of each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        queryBase.distinct(by: keyPaths.map { KeyPathRecorder.name($0) })
    }

    /// The smallest value of a property (numbers and dates), or nil when there are none.
    public func min<T: PersistableValue>(of keyPath: KeyPath<Element, T>) -> T? {
        queryBase.min(ofProperty: KeyPathRecorder.name(keyPath))
    }

    /// The largest value of a property (numbers and dates), or nil when there are none.
    public func max<T: PersistableValue>(of keyPath: KeyPath<Element, T>) -> T? {
        queryBase.max(ofProperty: KeyPathRecorder.name(keyPath))
    }

    /// The sum of a numeric property (0 when empty).
    public func sum<T: PersistableValue & AdditiveArithmetic>(of keyPath: KeyPath<Element, T>) -> T {
        queryBase.sum(ofProperty: KeyPathRecorder.name(keyPath))
    }

    /// The average of a numeric property, as the property's type (an integer average is
    /// truncated, as in RealmSwift), or nil when empty.
    public func average<T: PersistableValue & AdditiveArithmetic>(of keyPath: KeyPath<Element, T>) -> T? {
        let mean: Double? = queryBase.average(ofProperty: KeyPathRecorder.name(keyPath))
        return mean.flatMap(numericValue)
    }

    /// Calls `block` like `observe(keyPaths:on:_:)` with property names, for changes of the
    /// properties the key paths read (`[\Dog.name, \Dog.owner.name]`).
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        let names = keyPaths.map { KeyPathRecorder.name($0) }
        switch self {
        case let results as Results<Element>:
            return results.observe(keyPaths: names, on: queue) { block(Self.rebind($0)) }
        case let list as List<Element>:
            return list.observe(keyPaths: names, on: queue) { block(Self.rebind($0)) }
        case let linking as LinkingObjects<Element>:
            return linking.observe(keyPaths: names, on: queue) { block(Self.rebind($0)) }
        default:
            atollProgrammerError("observe(keyPaths:) is not available on \(Self.self)")
        }
    }

    /// A change of a concrete collection as a change of `Self` (the same type, statically lost).
    private static func rebind<C>(_ change: RealmCollectionChange<C>) -> RealmCollectionChange<Self> {
        switch change {
        case .initial(let c): return .initial(c as! Self)
        case .update(let c, let d, let i, let m): return .update(c as! Self, deletions: d, insertions: i, modifications: m)
        case .error(let e): return .error(e)
        }
    }
}

extension Object {
    /// Calls `block` like `observe(keyPaths:on:_:)` with property names, for changes of the
    /// properties the key paths read, through links too (`[\Dog.name, \Dog.owner.name]`).
    public func observe<T: Object>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { KeyPathRecorder.name($0) }, on: queue, block)
    }
}

/// `value` as a `T` of the numeric types Atoll stores (integers truncated), or nil.
func numericValue<T>(_ value: Double) -> T? {
    switch T.self {
    case is Double.Type: return value as? T
    case is Float.Type: return Float(value) as? T
    case is Int.Type: return Int(exactly: value.rounded(.towardZero)) as? T
    case is Int8.Type: return Int8(exactly: value.rounded(.towardZero)) as? T
    case is Int16.Type: return Int16(exactly: value.rounded(.towardZero)) as? T
    case is Int32.Type: return Int32(exactly: value.rounded(.towardZero)) as? T
    case is Int64.Type: return Int64(exactly: value.rounded(.towardZero)) as? T
    default: return nil
    }
}
