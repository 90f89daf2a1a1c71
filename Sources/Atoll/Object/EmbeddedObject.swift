/// The base class of embedded model classes: objects that live inside one parent object.
///
/// ```swift
/// final class Address: EmbeddedObject {
///     @Persisted var street = ""
///     @Persisted var city = ""
/// }
/// final class Contact: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted var address: Address?        // a to-one embedded object
///     @Persisted var previous: List<Address>  // a list of embedded objects
/// }
/// try realm.write {
///     realm.create(Contact.self, value: ["id": 1, "address": ["street": "Main St 1"]])
/// }
/// let inMain = realm.objects(Contact.self).where { $0.address.street.starts(with: "Main") }
/// ```
/// As in RealmSwift, an embedded object:
/// - has no primary key and is never added or created on its own (`realm.add(address)`,
///   `realm.create(Address.self)` and `dynamicCreate("Address")` fail the write); it is stored by
///   assigning it to a property of a parent, or from nested values in `create`;
/// - belongs to exactly one parent: assigning an unmanaged embedded object stores it (the instance
///   becomes managed), assigning a dictionary or creating from another object stores a copy, and
///   assigning an embedded object that is already managed fails ("already has an owner");
/// - is deleted with its parent, and when the parent's property is set to nil or to another
///   object, or it is removed from its list or map (recursively, with the embedded objects it
///   holds); a deleted embedded object `isInvalidated`.
/// Queries reach embedded objects through their parent's key paths (`"address.street == 'x'"`,
/// `"ANY previous.city == 'Oslo'"`). Embedded objects are stored in a table of their own flagged
/// embedded (docs/FORMAT.md), whose rows `atoll verify` checks have exactly one owner each.
open class EmbeddedObject: Object {
    /// An embedded class has no primary key; overriding this has no effect (the schema check
    /// refuses a declared one).
    override public final class func primaryKey() -> String? { nil }
}
