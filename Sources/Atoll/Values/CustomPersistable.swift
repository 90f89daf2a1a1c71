public import AtollStorage

/// A type of your own stored as a type Atoll supports, as in RealmSwift:
///
/// ```swift
/// struct Celsius: CustomPersistable {
///     typealias PersistedType = Double
///     var degrees: Double
///     init(persistedValue: Double) { degrees = persistedValue }
///     var persistableValue: Double { degrees }
/// }
/// final class Reading: Object {
///     @Persisted var temperature: Celsius          // stored as a Double
///     @Persisted var history: List<Celsius>
///     @Persisted var peak: Celsius?
/// }
/// realm.objects(Reading.self).where { $0.temperature > Celsius(persistedValue: 30) }
/// ```
/// `PersistedType` may be any type a property or collection element can be (`Int`, `String`,
/// `Double`, `Date`, `Data`, `Decimal128`, `ObjectId`, `UUID`, ...). The property is stored,
/// indexed, imported and exported as that type; queries compare the persisted values (a value
/// of your type in a query stands for its `persistableValue`), and `$0.prop.persistableValue`
/// gives the persisted type's operators. Key-value coding (`object["temperature"]`) reads and
/// writes the persisted value, as in RealmSwift. Hashing uses `persistableValue`.
///
/// Unlike RealmSwift, an `EmbeddedObject` subclass cannot be the `PersistedType` yet: a
/// model with such a property is refused when its schema is built.
public protocol CustomPersistable: _CustomPersistable {
    /// Makes a value from its persisted form.
    init(persistedValue: PersistedType)
    /// The value's persisted form.
    var persistableValue: PersistedType { get }
}

/// A `CustomPersistable` whose persisted values do not all have a value of your type, as in
/// RealmSwift (a `URL` stored as a `String`: not every string is a URL):
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public typealias PersistedType = String
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
/// ```
/// A stored value `init?(persistedValue:)` rejects (written by the dynamic API, key-value
/// coding or another program) reads as nil in an optional context (`@Persisted var url: URL?`,
/// `List<URL?>`, `Map<String, URL?>`); in a non-optional one it is a programming error that
/// stops the program, where RealmSwift raises an exception. `init?(persistedValue:)` must
/// accept the persisted type's default (`""`, `0`, ...) for a non-optional property declared
/// without a default value.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// Makes a value from its persisted form, or nil when there is none for it.
    init?(persistedValue: PersistedType)
    /// The value's persisted form.
    var persistableValue: PersistedType { get }
}

/// What `CustomPersistable` and `FailableCustomPersistable` share (an implementation detail).
public protocol _CustomPersistable: RealmCollectionValue, _AtollRawValued {
    /// The stored type.
    associatedtype PersistedType: RealmCollectionValue
    /// The value's persisted form.
    var persistableValue: PersistedType { get }
    /// `init(persistedValue:)`, nil where a failable one fails.
    static func _atollMake(_ persisted: PersistedType) -> Self?
}

extension CustomPersistable {
    public static func _atollMake(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
}

extension FailableCustomPersistable {
    public static func _atollMake(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
}

extension _CustomPersistable {
    /// Hashes `persistableValue`, as RealmSwift does.
    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }

    public static var _atollType: _PropertyType {
        let type = PersistedType._atollType
        if case .scalar = type.kind { return type }
        atollProgrammerError("\(Self.self) is persisted as \(PersistedType.self), which Atoll cannot map a custom type to; use a type a property can store (Int, String, Double, Date, ...)")
    }

    public static func _atollDefault() -> Self {
        let persisted = PersistedType._atollDefault()
        guard let value = _atollMake(persisted) else {
            atollProgrammerError("Failed to default construct a \(Self.self) using the default value for persisted type \(PersistedType.self). "
                + "This conversion must either succeed, the property must be optional, or you must explicitly specify a default value for the property.")
        }
        return value
    }

    public static func _atollGet(_ a: _ManagedAccess) -> Self { converted(PersistedType._atollGet(a)) }

    public static func _atollGetInsideOptional(_ a: _ManagedAccess) -> Self? { _atollMake(PersistedType._atollGet(a)) }

    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Self? {
        PersistedType._atollFromStorage(v, realm: realm).flatMap(_atollMake)
    }

    public static func _atollFromStorageInsideOptional(_ v: StorageValue, realm: Realm?) -> Self?? {
        guard let persisted = PersistedType._atollFromStorage(v, realm: realm) else { return nil }
        return .some(_atollMake(persisted))
    }

    public static func _atollElement(_ v: StorageValue, realm: Realm) -> Self {
        guard let persisted = PersistedType._atollFromStorage(v, realm: realm) else { return _atollDefault() }
        return converted(persisted)
    }

    public var _atollStorageValue: StorageValue? { persistableValue._atollStorageValue }

    public var _atollRawValue: Any { persistableValue }

    private static func converted(_ persisted: PersistedType) -> Self {
        guard let value = _atollMake(persisted) else {
            atollProgrammerError("Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context.")
        }
        return value
    }
}
