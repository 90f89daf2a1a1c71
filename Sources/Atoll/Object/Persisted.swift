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
    /// Negative for a value decoded by `init(from:)` until its object's init renumbers it
    /// (Persisted+Codable.swift).
    @usableFromInline var rawIndex: Int32
    @usableFromInline let options: PersistedOptions
    /// The unmanaged object holding this property, set only for models that are `Encodable`
    /// (the wrapper's `encode(to:)` reads the value from it). Not retained: the wrapper lives
    /// inside that object.
    @usableFromInline var owner: UnsafeMutableRawPointer? = nil

    @usableFromInline
    struct PersistedOptions {
        @usableFromInline var primaryKey = false
        @usableFromInline var indexed = false
        @usableFromInline var originProperty: String?
        /// Whether the declaration gives a default (`= value`): creating an object from a
        /// dictionary or JSON without a value for a required property needs one.
        @usableFromInline var hasDeclaredDefault = false

        @usableFromInline
        init(primaryKey: Bool = false, indexed: Bool = false, originProperty: String? = nil, hasDeclaredDefault: Bool = false) {
            self.primaryKey = primaryKey
            self.indexed = indexed
            self.originProperty = originProperty
            self.hasDeclaredDefault = hasDeclaredDefault
        }
    }

    @available(*, unavailable, message: "@Persisted can only be used on Object subclasses")
    public var wrappedValue: Value {
        get { Value._atollDefault() }
        set { _ = newValue }
    }

    // Inlinable so the wrapper is specialized in the model's module: creating an object then
    // costs no generic metadata or value-witness calls per property.
    @inlinable
    init(value: Value, options: PersistedOptions) {
        let slot = InitContext.claimManagedSlot()
        if slot >= 0 {
            // Atoll's own instance of a stored object: the default is never read.
            rawIndex = slot
        } else {
            let context = InitContext.current
            rawIndex = Int32(context.count)
            context.push(value)
        }
        self.options = options
    }

    /// For declarations without a default: the type's default (a new id for `ObjectId` and
    /// `UUID`, the current time for `Date`, as in RealmSwift), made only when it is used.
    @inlinable
    init(typeDefaultWith options: PersistedOptions) {
        let slot = InitContext.claimManagedSlot()
        if slot >= 0 {
            rawIndex = slot
        } else {
            let context = InitContext.current
            rawIndex = Int32(context.count)
            context.push(Value._atollDefault())
        }
        self.options = options
    }

    /// A property whose new objects start at the declared value (`@Persisted var name = "Rex"`).
    @inlinable
    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, options: PersistedOptions(hasDeclaredDefault: true))
    }

    /// A property whose new objects start at its type's default (`@Persisted var dogs: List<Dog>`).
    @inlinable
    public init() {
        self.init(typeDefaultWith: PersistedOptions())
    }

    /// `primaryKey`: the object's unique key. `indexed`: keep a search index.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool = false, indexed: Bool = false) {
        self.init(value: wrappedValue, options: PersistedOptions(primaryKey: primaryKey, indexed: indexed, hasDeclaredDefault: true))
    }

    /// A property without a declared value: `primaryKey` makes it the object's unique key,
    /// `indexed` keeps a search index on it.
    @inlinable
    public init(primaryKey: Bool = false, indexed: Bool = false) {
        self.init(typeDefaultWith: PersistedOptions(primaryKey: primaryKey, indexed: indexed))
    }

    @inlinable
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
    @inlinable
    public init(originProperty: String) {
        self.init(typeDefaultWith: PersistedOptions(originProperty: originProperty))
    }
}

/// Type-erased view of a `Persisted` wrapper, for schema discovery.
protocol PersistedProperty {
    var rawIndex: Int32 { get }
    var isPrimaryKey: Bool { get }
    var isIndexed: Bool { get }
    var originProperty: String? { get }
    var hasDeclaredDefault: Bool { get }
    var valueType: any PersistableValue.Type { get }
}

extension Persisted: PersistedProperty {
    var isPrimaryKey: Bool { options.primaryKey }
    var isIndexed: Bool { options.indexed }
    var originProperty: String? { options.originProperty }
    var hasDeclaredDefault: Bool { options.hasDeclaredDefault }
    var valueType: any PersistableValue.Type { Value.self }
}
