import AtollStorage
import AtollQuery

/// Something a `ThreadSafeReference` can carry: a managed object, `Results`, a `List` or
/// `LinkingObjects`.
public protocol ThreadConfined {
    /// The realm managing the value, or nil while unmanaged.
    var realm: Realm? { get }
}

extension Object: ThreadConfined {}
extension Results: ThreadConfined {}
extension List: ThreadConfined {}
extension LinkingObjects: ThreadConfined {}

/// Passes a managed object, results, a list or linking objects to another thread, where
/// `realm.resolve(_:)` gives the same thing in that thread's realm.
///
/// ```swift
/// let ref = ThreadSafeReference(to: dog)
/// DispatchQueue.global().async {
///     guard let realm = try? Realm(configuration: config), let dog = realm.resolve(ref) else { return }
///     print(dog.name)
/// }
/// ```
/// The reference holds what identifies the value (its file, class, key, query) and keeps the
/// version it was made at readable, as in RealmSwift: a realm that has read nothing yet
/// resolves it at that version (and reads that version until `refresh()`); a realm older than
/// it is refreshed first, so the value is never missing because the resolving thread lagged
/// behind.
public struct ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    let payload: ThreadSafePayload?
    /// The file (or in-memory identifier) and version the reference was made at.
    let identity: String
    let version: UInt64
    /// That version, pinned while the reference exists (nil inside a write, for frozen values,
    /// or when no reader slot was free: the reference then resolves at the newest version).
    let pin: PinnedVersion?

    /// A reference to `value`. An unmanaged value gives a reference that resolves to nil.
    public init(to value: Confined) {
        identity = value.realm?.configuration.identity ?? ""
        version = value.realm?.version ?? 0
        pin = value.realm.flatMap(PinnedVersion.init(of:))
        if let o = value as? Object, let m = o._managed {
            payload = .object(m.binding, key: m.key)
        } else if let d = value as? any ThreadSafeDescribable {
            payload = d.threadSafePayload
        } else {
            payload = nil
        }
    }
}

/// Keeps one version of a database readable for as long as a reference to it exists.
final class PinnedVersion: @unchecked Sendable {
    // Sendable: the transaction is never read through; it only gives its version to new
    // transactions (`beginRead(sameVersionAs:)` reads its immutable root), and is closed once.
    let transaction: ReadTransaction

    /// The version `realm` reads, pinned; nil when there is nothing to pin.
    init?(of realm: Realm) {
        guard !realm.isFrozen, !realm.isInWriteTransaction, realm.confinement.isCurrent else { return nil }
        do {
            transaction = try realm.database.beginRead(sameVersionAs: realm.transaction)
        } catch {
            // The reader table is full: the reference still works, at the newest version.
            return nil
        }
    }

    deinit { transaction.close() }
}

/// What a reference identifies, independently of any realm instance.
enum ThreadSafePayload: Sendable {
    case object(ClassBinding, key: ObjectKey)
    case results(ClassBinding, source: ResultsSource, query: BoundQuery?)
    case list(owner: ClassBinding, key: ObjectKey, column: Int)
}

protocol ThreadSafeDescribable {
    var threadSafePayload: ThreadSafePayload? { get }
}

extension Results: ThreadSafeDescribable {
    var threadSafePayload: ThreadSafePayload? { .results(core.binding, source: core.source, query: core.query) }
}

extension LinkingObjects: ThreadSafeDescribable {
    var threadSafePayload: ThreadSafePayload? {
        results.map { .results($0.core.binding, source: $0.core.source, query: $0.core.query) }
    }
}

extension List: ThreadSafeDescribable {
    var threadSafePayload: ThreadSafePayload? {
        managed.map { .list(owner: $0.owner, key: $0.key, column: $0.column) }
    }
}

/// Types `resolve` can rebuild from a payload.
protocol ThreadSafeResolvable {
    static func resolve(_ payload: ThreadSafePayload, in realm: Realm) -> Self?
}

extension Results: ThreadSafeResolvable {
    static func resolve(_ payload: ThreadSafePayload, in realm: Realm) -> Results<Element>? {
        // Rebasing binds classes (a schema question, see `Results.freeze()`).
        guard case .results(let b, let source, let query) = payload,
              let rebased = realm.schemaAnswer("the class of these results",
                                               { try ResultsCore(realm: realm, binding: b, source: source, query: query).rebased(on: realm) }) else { return nil }
        return Results(core: rebased)
    }
}

extension LinkingObjects: ThreadSafeResolvable {
    static func resolve(_ payload: ThreadSafePayload, in realm: Realm) -> LinkingObjects<Element>? {
        Results<Element>.resolve(payload, in: realm).map { LinkingObjects(results: $0) }
    }
}

extension List: ThreadSafeResolvable {
    static func resolve(_ payload: ThreadSafePayload, in realm: Realm) -> List<Element>? {
        // A class this realm does not have (another objectTypes) resolves to nothing: a question
        // about the schema, not a read of the file.
        guard case .list(let owner, let key, let column) = payload, let b = try? realm.binding(for: owner.schema.objectType),
              realm.objectExists(b, key) else { return nil }
        return List(managed: Managed(realm: realm, owner: b, key: key, column: column))
    }
}

extension Realm {
    /// The object, results, list or linking objects a reference carries, in this realm; nil
    /// when the object (or the list's object) was deleted, or the reference belongs to another
    /// file. This realm is refreshed first if it is older than the reference.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        resolve(reference, atPinnedVersion: true)
    }

    /// `resolve(_:)`; with `atPinnedVersion` false a realm that has read nothing yet stays at the
    /// newest version instead of starting at the reference's (`@ThreadSafe`, whose realm stands
    /// for the reading thread's own, which RealmSwift keeps refreshed).
    func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>, atPinnedVersion: Bool) -> Confined? {
        verifyThread()
        guard let payload = reference.payload, reference.identity == configuration.identity else { return nil }
        if atPinnedVersion, let pin = reference.pin, !hasRead {
            do { try startReading(atVersionOf: pin.transaction) } catch {
                // Could not pin that version again: resolve at the newest one.
            }
        }
        if version < reference.version, !isInWriteTransaction, !isFrozen { refresh() }
        switch payload {
        case .object(let source, let key):
            let type = source.schema.objectType
            // A class this realm does not have resolves to nothing (see List.resolve).
            guard let b = schemaAnswer("the class '\(type.className())'", { try binding(for: type) }), objectExists(b, key) else { return nil }
            return makeObject(type, key: key, binding: b) as? Confined
        case .results, .list:
            return (Confined.self as? any ThreadSafeResolvable.Type)?.resolve(payload, in: self) as? Confined
        }
    }
}
