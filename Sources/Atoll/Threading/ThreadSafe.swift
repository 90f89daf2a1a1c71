import Synchronization

extension ThreadSafeReference {
    /// Whether the reference can no longer resolve to anything: it was made from an
    /// unmanaged value. (Atoll references may be resolved more than once, so resolving does
    /// not invalidate them; README, "Differences from RealmSwift".)
    public var isInvalidated: Bool { payload == nil }
}

/// A property that holds a managed object (or results, a list, linking objects) across
/// threads: it stores a `ThreadSafeReference` and resolves it in a realm of the reading thread.
///
/// ```swift
/// final class Loader: Sendable {
///     @ThreadSafe var dog: Dog?
/// }
/// loader.dog = dog                          // on the realm's thread
/// DispatchQueue.global().async { print(loader.dog?.name) }   // resolved here
/// ```
/// Reading resolves the value in the realm of the reading thread that has a write open on its
/// file, or else in a newly opened realm of that file; nil when the value was deleted. O(1)
/// plus opening a realm.
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: Sendable {
    private struct Stored: Sendable {
        var reference: ThreadSafeReference<T>?
        var configuration: Realm.Configuration?
        /// The identity of the value's file (`Database.fileId`).
        var file: [UInt8]?
    }

    private let stored = Mutex(Stored())

    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }

    /// The value, resolved in a realm of the calling thread; setting it stores a reference.
    public var wrappedValue: T? {
        get {
            let (reference, configuration, file) = stored.withLock { ($0.reference, $0.configuration, $0.file) }
            guard let reference, let configuration, let file else { return nil }
            // In a write on this thread: resolve in the writing realm, so changes go through it
            // (RealmSwift's thread has one realm per file).
            if let writing = WritingRealms.current(file: file) { return writing.resolve(reference) }
            // RealmSwift opens the realm with `try!`: the value's file was open when it was set.
            do { return try Realm(configuration: configuration).resolve(reference) } catch {
                atollProgrammerError("@ThreadSafe cannot open the realm of its value: \(error)")
            }
        }
        set {
            guard let newValue else {
                stored.withLock { $0 = Stored() }
                return
            }
            guard let realm = newValue.realm else {
                atollProgrammerError("Only managed objects may be wrapped as thread safe.")
            }
            let reference = ThreadSafeReference(to: newValue)
            let configuration = realm.configuration
            let file = realm.database.fileId
            stored.withLock { $0 = Stored(reference: reference, configuration: configuration, file: file) }
        }
    }
}
