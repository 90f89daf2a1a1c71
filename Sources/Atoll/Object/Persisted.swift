import AtollStorage

/// Declares a persisted property of an `Object` subclass.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted(indexed: true) var name = ""
///     @Persisted var owner: Person?
///     @Persisted var tags: List<String>
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// ```
/// Properties without `@Persisted` (and computed properties) are not stored.
@propertyWrapper
public struct Persisted<Value: PersistableValue> {
    /// Position of this property's default on the thread's init stack (see InitContext).
    @usableFromInline let rawIndex: Int32
    let options: PersistedOptions

    struct PersistedOptions {
        var primaryKey = false
        var indexed = false
        var originProperty: String?
    }

    @available(*, unavailable, message: "@Persisted can only be used on Object subclasses")
    public var wrappedValue: Value {
        get { Value._atollDefault() }
        set { _ = newValue }
    }

    private init(value: Value, options: PersistedOptions) {
        let context = InitContext.current
        rawIndex = Int32(context.values.count)
        // Atoll's own instances of stored objects read from the realm: the default is unused.
        context.values.append(context.managedCreation > 0 ? false : value)
        self.options = options
    }

    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, options: PersistedOptions())
    }

    public init() {
        self.init(value: Value._atollDefault(), options: PersistedOptions())
    }

    /// `primaryKey`: the object's unique key. `indexed`: keep a search index.
    public init(wrappedValue: Value, primaryKey: Bool = false, indexed: Bool = false) {
        self.init(value: wrappedValue, options: PersistedOptions(primaryKey: primaryKey, indexed: indexed))
    }

    public init(primaryKey: Bool = false, indexed: Bool = false) {
        self.init(value: Value._atollDefault(), options: PersistedOptions(primaryKey: primaryKey, indexed: indexed))
    }

    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            let index = Int(object[keyPath: storageKeyPath].rawIndex) - object._indexBase
            return object._getValue(index, as: Value.self)
        }
        set {
            let index = Int(object[keyPath: storageKeyPath].rawIndex) - object._indexBase
            object._setValue(newValue, at: index)
        }
    }
}

extension Persisted where Value: _LinkingObjectsProtocol {
    /// An inverse relationship: the objects whose `originProperty` links to this one.
    public init(originProperty: String) {
        self.init(value: Value._atollDefault(), options: PersistedOptions(originProperty: originProperty))
    }
}

/// Type-erased view of a `Persisted` wrapper, for schema discovery.
protocol PersistedProperty {
    var rawIndex: Int32 { get }
    var isPrimaryKey: Bool { get }
    var isIndexed: Bool { get }
    var originProperty: String? { get }
    var valueType: any PersistableValue.Type { get }
}

extension Persisted: PersistedProperty {
    var isPrimaryKey: Bool { options.primaryKey }
    var isIndexed: Bool { options.indexed }
    var originProperty: String? { options.originProperty }
    var valueType: any PersistableValue.Type { Value.self }
}
