import AtollStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Per thread and database: the realm instance with a write transaction open. RealmSwift hands
/// a thread one cached realm per file, so code that resolves a value "in this thread's realm"
/// (`@ThreadSafe`) writes through the realm the caller opened the write on; Atoll opens a new
/// instance per `Realm(...)`, so it looks the writing instance up here.
enum WritingRealms {
    private struct Key: Hashable {
        let thread: UInt
        /// The file's identity (stable across the process's openings of the file).
        let file: [UInt8]
    }

    private struct Entry: @unchecked Sendable {
        // Sendable: read and written under the mutex; the realm is only handed out on the
        // thread that registered it (the key's thread).
        weak var realm: Realm?
    }

    private static let entries = AtollLock<[Key: Entry]>([:])

    private static var thread: UInt { UInt(pthread_self()) }

    /// Records (or forgets) `realm` as the writing realm of its file on this thread.
    static func note(_ realm: Realm, writing: Bool) {
        guard !realm.isFrozen else { return }
        let key = Key(thread: thread, file: realm.database.fileId)
        entries.withLock { entries in
            if writing {
                entries[key] = Entry(realm: realm)
            } else if entries[key]?.realm === realm || entries[key]?.realm == nil {
                entries[key] = nil
            }
        }
    }

    /// The realm of this thread with a write open on the file with identity `file`, if any.
    static func current(file: [UInt8]) -> Realm? {
        let key = Key(thread: thread, file: file)
        return entries.withLock { $0[key]?.realm }
    }
}
