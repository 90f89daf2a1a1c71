import AtollStorage
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
/// file, or else in a newly opened realm of that file at its newest version; nil when the value
/// was deleted. As in RealmSwift, each read then stores a reference made from the value it
/// resolved, so the next read (on any thread) sees at least that version, and an older version
/// is not kept pinned. O(1) plus opening a realm.
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: Sendable {
    private struct Stored: Sendable {
        var reference: ThreadSafeReference<T>?
        var configuration: Realm.Configuration?
        /// The identity of the value's file (`Database.fileId`).
        var file: [UInt8]?
        /// Counts the values set, so a read stores its reference only over the one it resolved.
        var generation: UInt64 = 0
    }

    private let stored = AtollLock(Stored())

    /// Holds `wrappedValue`, resolving it again in the realm of whichever thread reads it.
    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }

    /// The value, resolved in a realm of the calling thread; setting it stores a reference.
    public var wrappedValue: T? {
        get {
            let (reference, configuration, file, generation) = stored.withLock { ($0.reference, $0.configuration, $0.file, $0.generation) }
            guard let reference, let configuration, let file else { return nil }
            let value: T?
            // In a write on this thread: resolve in the writing realm, so changes go through it
            // (RealmSwift's thread has one realm per file).
            if let writing = WritingRealms.current(file: file) {
                value = writing.resolve(reference)
            } else {
                // RealmSwift opens the realm with `try!`: the value's file was open when it was set.
                do { value = try Realm(configuration: configuration).resolve(reference, atPinnedVersion: false) } catch {
                    atollProgrammerError("@ThreadSafe cannot open the realm of its value: \(error)")
                }
            }
            let renewed = value.map { ThreadSafeReference(to: $0) }
            stored.withLock { s in
                guard s.generation == generation else { return }
                s.reference = renewed
                if renewed == nil { s = Stored(generation: generation) }
            }
            return value
        }
        set {
            guard let newValue else {
                stored.withLock { $0 = Stored(generation: $0.generation &+ 1) }
                return
            }
            guard let realm = newValue.realm else {
                atollProgrammerError("Only managed objects may be wrapped as thread safe.")
            }
            let reference = ThreadSafeReference(to: newValue)
            let configuration = realm.configuration
            let file = realm.database.fileId
            stored.withLock { $0 = Stored(reference: reference, configuration: configuration, file: file, generation: $0.generation &+ 1) }
        }
    }
}
