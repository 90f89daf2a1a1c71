import AtollStorage
import Dispatch
import Foundation
import Synchronization

/// One per open database in the process: a background thread sleeps on the lock file's commit
/// futex and, when any thread or process commits, asks every queue-confined Realm with
/// `autorefresh` to refresh on its queue (which delivers its notifications).
final class RealmCoordinator: @unchecked Sendable {
    // Sendable: `realms` is guarded by `lock`; each Realm is only touched on its own queue.
    private let database: Database
    private let lock = NSLock()
    private var realms: [ObjectIdentifier: (weak: WeakRealm, queue: DispatchQueue)] = [:]
    private var running = false

    private static let coordinators = Mutex<[ObjectIdentifier: RealmCoordinator]>([:])

    struct WeakRealm { weak var realm: Realm? }

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

    func register(_ realm: Realm) {
        guard let queue = realm.confinement.queue else { return }
        lock.lock()
        realms[ObjectIdentifier(realm)] = (WeakRealm(realm: realm), queue)
        let start = !running
        running = true
        lock.unlock()
        if start {
            let thread = Thread { [self] in watch() }
            thread.name = "atoll-coordinator"
            thread.start()
        }
    }

    func unregister(_ realm: Realm) {
        lock.lock()
        realms[ObjectIdentifier(realm)] = nil
        lock.unlock()
    }

    private func watch() {
        var seen = database.commitSequence
        while true {
            let now = database.waitForCommit(after: seen, timeoutMilliseconds: 500)
            lock.lock()
            realms = realms.filter { $0.value.weak.realm != nil }
            if realms.isEmpty {
                running = false
                lock.unlock()
                return
            }
            let targets = Array(realms.values)
            lock.unlock()
            guard now != seen else { continue }
            seen = now
            for target in targets {
                let handoff = QueueHandoff(target.weak)
                target.queue.async {
                    guard let realm = handoff.value.realm, realm.autorefresh, !realm.isInWriteTransaction else { return }
                    realm.refresh()
                }
            }
        }
    }
}
