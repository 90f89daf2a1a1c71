import AtollStorage
import AtollQuery

/// Something a `ThreadSafeReference` can carry: an object or live results.
public protocol ThreadConfined {
    var realm: Realm? { get }
}

extension Object: ThreadConfined {}
extension Results: ThreadConfined {}

/// Passes a managed object or results to another thread, where `realm.resolve(_:)` gives the
/// same object (or results) in that thread's realm, at its version.
///
/// ```swift
/// let ref = ThreadSafeReference(to: dog)
/// DispatchQueue.global().async {
///     let realm = try! Realm(configuration: config)
///     if let dog = realm.resolve(ref) { print(dog.name) }
/// }
/// ```
public struct ThreadSafeReference<Confined: ThreadConfined>: @unchecked Sendable {
    // Sendable: holds only value descriptions (keys, the query), no realm state.
    let payload: ThreadSafePayload?

    public init(to value: Confined) {
        if let o = value as? Object, let m = o._managed {
            payload = .object(type: Swift.type(of: o), key: m.key)
        } else if let r = value as? any ResultsDescribable {
            payload = r.threadSafeDescription
        } else {
            payload = nil
        }
    }
}

enum ThreadSafePayload {
    case object(type: Object.Type, key: ObjectKey)
    case results(type: Object.Type, core: ResultsDescription)
}

protocol ResultsDescribable {
    var threadSafeDescription: ThreadSafePayload? { get }
}

/// What identifies results independently of a realm instance.
struct ResultsDescription {
    let source: ResultsSource
    let query: BoundQuery?
}

extension Results: ResultsDescribable {
    var threadSafeDescription: ThreadSafePayload? {
        .results(type: Element.self, core: ResultsDescription(source: core.source, query: core.query))
    }
}

extension Realm {
    /// The object or results a reference carries, in this realm; nil if the object was deleted.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        verifyThread()
        switch reference.payload {
        case .object(let type, let key)?:
            guard let b = try? binding(for: type), let t = try? table(b), (try? t.contains(key)) == true else { return nil }
            return makeObject(type, key: key, binding: b) as? Confined
        case .results(let type, let d)?:
            guard let b = try? binding(for: type) else { return nil }
            let core = ResultsCore(realm: self, binding: b, source: d.source, query: d.query)
            guard let rebased = try? core.rebased(on: self) else { return nil }
            return (Confined.self as? any ResultsInitializable.Type)?.make(rebased) as? Confined
        case nil:
            return nil
        }
    }
}

protocol ResultsInitializable {
    static func make(_ core: ResultsCore<ClassBinding>) -> Self
}

extension Results: ResultsInitializable {
    static func make(_ core: ResultsCore<ClassBinding>) -> Results<Element> { Results(core: core) }
}
