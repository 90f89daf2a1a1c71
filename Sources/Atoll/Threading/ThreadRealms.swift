import Foundation

// The live realms each thread has open, so that `thaw()` resolves where RealmSwift resolves.
//
// RealmSwift's `Realm(configuration:)` returns one cached instance per thread and file, and
// `thaw()` resolves a frozen object in it, at the version that realm reads: an object created by
// a commit it has not refreshed to yet thaws to nil, and a thawed object shows what that realm
// shows until it refreshes (realm-swift's testThawCreatedOnDifferentThread and
// testThawUpdatedOnDifferentThread). Atoll opens a new instance per `Realm(...)`; so thawing
// first looks here for a live realm of the same file and object subset that the calling thread
// opened (the most recently opened one still alive) and resolves in it. With none, it opens a
// realm at the newest version, as `Realm(configuration:)` does.
//
// Only thread-confined realms are listed: a realm of a dispatch queue or an actor may run on any
// thread. The list holds weak references in the thread's dictionary, so it keeps no realm open;
// entries of released realms are dropped when the list is next used.

/// The thread-confined live realms one thread opened, oldest first.
final class ThreadRealms {
    private static let threadKey = "io.atoll.thread-realms"

    private struct Entry {
        weak var realm: Realm?
    }

    private var entries: [Entry] = []

    /// The calling thread's list, made on first use.
    private static var current: ThreadRealms {
        let dictionary = Thread.current.threadDictionary
        if let list = dictionary[threadKey] as? ThreadRealms { return list }
        let list = ThreadRealms()
        dictionary[threadKey] = list
        return list
    }

    /// Lists `realm`, just opened by the calling thread and confined to it.
    static func register(_ realm: Realm) {
        let list = current
        list.entries.removeAll { $0.realm == nil }
        list.entries.append(Entry(realm: realm))
    }

    /// The most recently opened live realm of the calling thread that `matches`.
    static func live(where matches: (Realm) -> Bool) -> Realm? {
        let list = current
        list.entries.removeAll { $0.realm == nil }
        return list.entries.reversed().lazy.compactMap(\.realm).first(where: matches)
    }
}

extension Realm {
    /// The live realm to resolve an object of the frozen realm `frozen` in: the calling thread's
    /// live realm of the same file and object subset at its current version (RealmSwift's
    /// thread-cached instance), or else a realm opened at the newest version.
    static func liveForThaw(of frozen: Realm) -> Realm {
        let existing = ThreadRealms.live { live in
            !live.isFrozen && live.database === frozen.database && live.hasSameObjectSubset(as: frozen)
                && live.confinement.isCurrent
        }
        return existing ?? openForThaw(frozen.configuration)
    }
}
