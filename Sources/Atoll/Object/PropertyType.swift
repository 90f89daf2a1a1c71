public import Foundation
public import AtollStorage

/// What a persisted property stores, derived from its Swift type.
public struct _PropertyType: Sendable, Equatable {
    enum Kind: Equatable {
        case scalar(ColumnType)
        case link(ObjectIdentifier)
        case list(ColumnType, target: ObjectIdentifier?)
        /// `MutableSet<T>`: unique elements (links when `target` is set).
        case set(ColumnType, target: ObjectIdentifier?)
        /// `Map<String, T>`: values under string keys (links when `target` is set).
        case map(ColumnType, target: ObjectIdentifier?)
        case linkingObjects(ObjectIdentifier)
    }

    let kind: Kind
    let isOptional: Bool
    let intBits: UInt8
    /// For links, lists, sets and maps of links and linking objects: the target class.
    let objectType: Object.Type?

    /// Same kind, optionality and integer width.
    public static func == (a: _PropertyType, b: _PropertyType) -> Bool {
        a.kind == b.kind && a.isOptional == b.isOptional && a.intBits == b.intBits
    }

    static func scalar(_ t: ColumnType, bits: UInt8 = 64) -> _PropertyType {
        _PropertyType(kind: .scalar(t), isOptional: false, intBits: bits, objectType: nil)
    }

    /// Whether the property holds a collection (list, set or map).
    var isCollection: Bool {
        switch kind {
        case .list, .set, .map: true
        case .scalar, .link, .linkingObjects: false
        }
    }

    /// The element type and link target of a list, set or map.
    var collectionElement: (type: ColumnType, target: ObjectIdentifier?)? {
        switch kind {
        case .list(let t, let target), .set(let t, let target), .map(let t, let target): (t, target)
        case .scalar, .link, .linkingObjects: nil
        }
    }

    var optional: _PropertyType { _PropertyType(kind: kind, isOptional: true, intBits: intBits, objectType: objectType) }

    var columnType: ColumnType? {
        switch kind {
        case .scalar(let t): t
        case .link: .link
        case .list(let t, _), .set(let t, _), .map(let t, _): t
        case .linkingObjects: nil
        }
    }
}

/// A type that can be the value of a `@Persisted` property or the element of a `List`:
/// Bool, Int (8 to 64 bits), Float, Double, String, Data, Date, UUID, ObjectId, their optionals,
/// `Object?` links, `List<T>` and `LinkingObjects<T>`.
///
/// The requirements are implementation details (underscored); conform only through the types
/// Atoll provides.
public protocol PersistableValue: SendableMetatype {
    static var _atollType: _PropertyType { get }
    static func _atollDefault() -> Self
    /// Reads a managed property.
    static func _atollGet(_ access: _ManagedAccess) -> Self
    /// Converts a stored value (links resolved by `realm`).
    static func _atollFromStorage(_ value: StorageValue, realm: Realm?) -> Self?
    /// The value as stored, or nil for values that are not scalars (objects, lists).
    var _atollStorageValue: StorageValue? { get }
    /// Reads a managed property that is not null, for an `Optional` of this type: nil when
    /// the stored value has no value of this type (a `FailableCustomPersistable`'s).
    static func _atollGetInsideOptional(_ access: _ManagedAccess) -> Self?
    /// Converts a stored value for an `Optional` of this type: nil when it is not a value of
    /// the stored type, `.some(nil)` when it is but has no value of this type.
    static func _atollFromStorageInsideOptional(_ value: StorageValue, realm: Realm?) -> Self??
    /// A stored collection element as a value of this type.
    static func _atollElement(_ value: StorageValue, realm: Realm) -> Self
}

extension PersistableValue {
    @inline(__always)
    public static func _atollGetInsideOptional(_ a: _ManagedAccess) -> Self? { _atollGet(a) }
    @inline(__always)
    public static func _atollFromStorageInsideOptional(_ v: StorageValue, realm: Realm?) -> Self?? {
        _atollFromStorage(v, realm: realm).map { .some($0) }
    }
    @inline(__always)
    public static func _atollElement(_ v: StorageValue, realm: Realm) -> Self {
        _atollFromStorage(v, realm: realm) ?? _atollDefault()
    }
}

/// A persistable value that is not a collection: it may be a `List` element.
/// Hashable as in RealmSwift: elements of lists compare and hash by value (objects as
/// `Object.==` says).
public protocol RealmCollectionValue: PersistableValue, Hashable {}

/// Opaque handle passed to `PersistableValue._atollGet`: one property of one managed object.
///
/// Trivial to make and pass (no reference counting): it lives only for the duration of one
/// property read, while the object being read holds its state.
public struct _ManagedAccess {
    // Unretained: the caller holds the object (and the object its state) for the whole read,
    // and reads then cost no reference counting.
    @usableFromInline let unretainedObject: Unmanaged<Object>
    @usableFromInline let propertyIndex: Int

    /// `object` must be managed.
    @inlinable @inline(__always)
    init(object: Object, propertyIndex: Int) {
        unretainedObject = Unmanaged.passUnretained(object)
        self.propertyIndex = propertyIndex
    }

    // Managed objects never lose their state (`_managed` is set once, when they become managed).
    var state: ManagedObjectState { unretainedObject.takeUnretainedValue()._managed.unsafelyUnwrapped }
    var realm: Realm { state.realm }
    var property: PropertyInfo { state.schema.allProperties[propertyIndex] }
    var column: Int { state.binding.columns[propertyIndex] }
    var key: ObjectKey { state.key }

    @inline(__always)
    func primaryKeyFromKey() -> Int64? {
        let state = unretainedObject._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0._managed.unsafelyUnwrapped) }
        return state._withUnsafeGuaranteedRef { $0.primaryKeyFromKey(propertyIndex) }
    }

    /// Reads through the object's table and row in the realm's current state.
    @inline(__always)
    func read<R>(_ body: (Table, RowHandle, Int) -> R) -> R {
        let state = unretainedObject._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0._managed.unsafelyUnwrapped) }
        return state._withUnsafeGuaranteedRef { $0.withRow(propertyIndex, body) }
    }

    /// Stops the program for a failed read of this property (README, "Failed reads"): a
    /// getter cannot throw, and a value it made up would be a lie.
    @inline(never)
    func readFailed(_ error: any Error) -> Never {
        realm.readFailed(error, reading: "'\(state.schema.className).\(property.name)'")
    }
}

// MARK: scalars

extension Bool: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.bool) }
    public static func _atollDefault() -> Bool { false }
    public static func _atollGet(_ a: _ManagedAccess) -> Bool { a.read { $0.bool($1, $2) } }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Bool? { if case .bool(let b) = v { b } else { nil } }
    public var _atollStorageValue: StorageValue? { .bool(self) }
}

/// Fixed-width integers share one implementation.
public protocol _AtollInteger: FixedWidthInteger, RealmCollectionValue {}

extension _AtollInteger {
    public static var _atollType: _PropertyType { .scalar(.int, bits: UInt8(Self.bitWidth)) }
    public static func _atollDefault() -> Self { 0 }
    public static func _atollGet(_ a: _ManagedAccess) -> Self {
        if let pk = a.primaryKeyFromKey() { return Self(truncatingIfNeeded: pk) }
        return Self(truncatingIfNeeded: a.read { $0.int($1, $2) })
    }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Self? {
        if case .int(let i) = v { return Self(exactly: i) }
        return nil
    }
    public var _atollStorageValue: StorageValue? { .int(Int64(self)) }
}

extension Int: _AtollInteger {}
extension Int8: _AtollInteger {}
extension Int16: _AtollInteger {}
extension Int32: _AtollInteger {}
extension Int64: _AtollInteger {}

extension Float: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.float) }
    public static func _atollDefault() -> Float { 0 }
    public static func _atollGet(_ a: _ManagedAccess) -> Float { a.read { $0.float($1, $2) } }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Float? { if case .float(let f) = v { f } else { nil } }
    public var _atollStorageValue: StorageValue? { .float(self) }
}

extension Double: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.double) }
    public static func _atollDefault() -> Double { 0 }
    public static func _atollGet(_ a: _ManagedAccess) -> Double { a.read { $0.double($1, $2) } }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Double? { if case .double(let d) = v { d } else { nil } }
    public var _atollStorageValue: StorageValue? { .double(self) }
}

extension String: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.string) }
    public static func _atollDefault() -> String { "" }
    public static func _atollGet(_ a: _ManagedAccess) -> String {
        a.read { t, row, c in
            // nil only for a null, which a required String column never holds.
            do { return try t.string(row, c) ?? "" } catch { a.readFailed(error) }
        }
    }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> String? { if case .string(let s) = v { s } else { nil } }
    public var _atollStorageValue: StorageValue? { .string(self) }
}

extension Data: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.binary) }
    public static func _atollDefault() -> Data { Data() }
    public static func _atollGet(_ a: _ManagedAccess) -> Data {
        a.read { t, row, c in
            do { return try t.bytes(row, c).map { Data($0) } ?? Data() } catch { a.readFailed(error) }
        }
    }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Data? { if case .binary(let b) = v { Data(b) } else { nil } }
    public var _atollStorageValue: StorageValue? { .binary([UInt8](self)) }
}

extension Date: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.timestamp) }
    public static func _atollDefault() -> Date { Date() }
    public static func _atollGet(_ a: _ManagedAccess) -> Date { Date(a.read { $0.timestamp($1, $2) }) }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Date? { if case .timestamp(let t) = v { Date(t) } else { nil } }
    public var _atollStorageValue: StorageValue? { .timestamp(Timestamp(self)) }
}

extension UUID: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.uuid) }
    public static func _atollDefault() -> UUID { UUID() }
    public static func _atollGet(_ a: _ManagedAccess) -> UUID { a.read { $0.uuid($1, $2) } }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> UUID? { if case .uuid(let u) = v { u } else { nil } }
    public var _atollStorageValue: StorageValue? { .uuid(self) }
}

extension ObjectId: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.objectId) }
    public static func _atollDefault() -> ObjectId { ObjectId() }
    public static func _atollGet(_ a: _ManagedAccess) -> ObjectId { a.read { $0.objectId($1, $2) } }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> ObjectId? { if case .objectId(let o) = v { o } else { nil } }
    public var _atollStorageValue: StorageValue? { .objectId(self) }
}

extension Optional: PersistableValue where Wrapped: PersistableValue {
    public static var _atollType: _PropertyType { Wrapped._atollType.optional }
    public static func _atollDefault() -> Optional<Wrapped> { nil }
    public static func _atollGet(_ a: _ManagedAccess) -> Optional<Wrapped> {
        if a.read({ $0.isNull($1, $2) }) { return nil }
        return Wrapped._atollGetInsideOptional(a)
    }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Optional<Wrapped>? {
        if v.isNull { return .some(nil) }
        return Wrapped._atollFromStorageInsideOptional(v, realm: realm)
    }
    public var _atollStorageValue: StorageValue? {
        switch self {
        case .none: return .null
        case .some(let w): return w._atollStorageValue
        }
    }
}

extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue {}

// MARK: conversions

extension Date {
    init(_ t: Timestamp) {
        self = Date(timeIntervalSince1970: Double(t.seconds) + Double(t.nanoseconds) / 1e9)
    }
}

extension Timestamp {
    /// Nanosecond-exact for dates within a few centuries of 1970; `Date` itself is a Double.
    init(_ date: Date) {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        let ns = ((interval - seconds) * 1e9).rounded()
        self.init(seconds: Int64(seconds), nanoseconds: Int32(min(ns, 999_999_999)))
    }
}
