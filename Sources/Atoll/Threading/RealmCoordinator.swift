import AtollStorage
import Dispatch
import Foundation
import Synchronization

/// One per open database in the process while queue- or actor-confined realms use it: a background
/// thread sleeps on the lock file's commit futex and, when any thread or process commits, asks
/// every queue- or actor-confined Realm with `autorefresh` to refresh on its queue or actor (which delivers its
/// notifications). The thread ends, and the coordinator is forgotten, when its last realm goes.
final class RealmCoordinator: Sendable {
    private struct State {
        var realms: [ObjectIdentifier: (realm: WeakRealm, scheduler: RealmScheduler)] = [:]
        var running = false
    }

    private let database: Database
    private let state = AtollLock(State())

    private static let coordinators = AtollLock<[ObjectIdentifier: RealmCoordinator]>([:])

    /// Sendable: the coordinator thread only tests the weak reference for nil; the Realm itself
    /// is used only on its own queue or actor (see `refresh(_:on:)`).
    struct WeakRealm: @unchecked Sendable { weak var realm: Realm? }

    private init(database: Database) { self.database = database }

    static func shared(for database: Database) -> RealmCoordinator {
        coordinators.withLock { map in
            let id = ObjectIdentifier(database)
            if let c = map[id] { return c }
            let c = RealmCoordinator(database: database)
            map[id] = c
            return c
        }
    }

    /// Starts watching for `realm`. A commit made between the realm's open and now is caught
    /// by comparing versions once registered.
    func register(_ realm: Realm) {
        guard let scheduler = realm.confinement.refreshScheduler else { return }
        let entry = (realm: WeakRealm(realm: realm), scheduler: scheduler)
        let seen = database.commitSequence
        let start = state.withLock { s -> Bool in
            s.realms[ObjectIdentifier(realm)] = entry
            defer { s.running = true }
            return !s.running
        }
        if start {
            // The sequence is read before the thread starts, so no commit falls in between.
            let thread = Thread { [self] in watch(from: seen) }
            thread.name = "atoll-coordinator"
            thread.start()
        }
        if database.latestVersion != realm.version { Self.refresh(entry.realm, on: scheduler) }
    }

    func unregister(_ realm: Realm) {
        state.withLock { _ = $0.realms.removeValue(forKey: ObjectIdentifier(realm)) }
    }

    private static func refresh(_ target: WeakRealm, on scheduler: RealmScheduler) {
        scheduler.perform {
            guard let realm = target.realm, realm.autorefresh, !realm.isInWriteTransaction else { return }
            do {
                try realm.refreshThrowing()
            } catch {
                // Nobody called: the observers, who would report a state they cannot know, get
                // the error (README, "Failed reads"), and the realm stops refreshing itself.
                realm.autorefresh = false
                realm.observers.failAll(error)
            }
        }
    }

    private func watch(from start: UInt32) {
        var seen = start
        while true {
            let now = database.waitForCommit(after: seen, timeoutMilliseconds: 200)
            let targets: [(realm: WeakRealm, scheduler: RealmScheduler)]? = state.withLock { s in
                s.realms = s.realms.filter { $0.value.realm.realm != nil }
                if s.realms.isEmpty {
                    s.running = false
                    return nil
                }
                return Array(s.realms.values)
            }
            guard let targets else {
                let id = ObjectIdentifier(database)
                Self.coordinators.withLock { map in if map[id] === self, state.withLock({ !$0.running }) { map[id] = nil } }
                return
            }
            guard now != seen else { continue }
            seen = now
            for target in targets { Self.refresh(target.realm, on: target.scheduler) }
        }
    }
}
