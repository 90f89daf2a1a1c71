public import AtollStorage

/// An enum stored as its raw value, as in RealmSwift:
///
/// ```swift
/// enum Size: Int, PersistableEnum { case small = 1, medium, large }
/// final class Dog: Object {
///     @Persisted var size: Size              // the first case by default
///     @Persisted var sizes: List<Size>
///     @Persisted var preferred: Size?
/// }
/// realm.objects(Dog.self).filter("size == %@", Size.large)   // compares raw values
/// ```
/// The raw value may be any type a property can store (`Int`, `String`, `Double`, ...). A
/// stored value that is no case of the enum (written by another program) stops the program when
/// read into a non-optional property, as in RealmSwift.
public protocol PersistableEnum: RawRepresentable, CaseIterable, RealmCollectionValue, _AtollRawValued where RawValue: RealmCollectionValue {}

/// Gives dynamic code the raw value of a `PersistableEnum` (an implementation detail).
public protocol _AtollRawValued {
    var _atollRawValue: Any { get }
}

extension PersistableEnum {
    public static var _atollType: _PropertyType { RawValue._atollType }

    /// The first case.
    public static func _atollDefault() -> Self {
        guard let first = allCases.first else { atollProgrammerError("\(Self.self) has no cases") }
        return first
    }

    public static func _atollGet(_ a: _ManagedAccess) -> Self { make(RawValue._atollGet(a)) }

    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Self? {
        RawValue._atollFromStorage(v, realm: realm).flatMap(Self.init(rawValue:))
    }

    public var _atollStorageValue: StorageValue? { rawValue._atollStorageValue }

    public var _atollRawValue: Any { rawValue }

    private static func make(_ raw: RawValue) -> Self {
        guard let value = Self(rawValue: raw) else { atollProgrammerError("the stored value \(raw) is not a case of \(Self.self)") }
        return value
    }
}
