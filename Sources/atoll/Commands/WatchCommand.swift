import ArgumentParser
import Atoll
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// `atoll watch DBPATH TYPE 'PREDICATE' [--arg JSON]...`
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the number of matching objects, then every change to them as other processes commit, until interrupted.",
        discussion: """
        The first line is 'initial: N objects'. Each commit that changes the matching objects prints \
        'change: insertions [...], deletions [...], modifications [...]; N objects', with indices as \
        live Results report them: deletions in the previous list, insertions and modifications in the \
        new one. Each line is flushed as it is printed. SIGINT or SIGTERM ends the watch with status 0.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @OptionGroup var query: QueryOptions

    func run() throws {
        try DatabaseAccess.requireExisting(dbpath)
        let key = try encryption.key()
        // The realm lives on its queue: it refreshes there when any process commits, and the
        // observer prints there. This thread only waits for a signal or a failure.
        let queue = DispatchQueue(label: "atoll.watch")
        // Signalled by SIGINT, SIGTERM, or a failure of the watch (even one in its first read,
        // while it starts).
        let stop = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        let session = WatchSession(stop: stop)
        try queue.sync { try session.start(dbpath: dbpath, key: key, query: query, queue: queue) }
        stop.wait()
        queue.sync { session.stop() }
        if let failure = session.failure { throw failure }
    }
}

/// The realm, results and token of a watch, touched only on the watch's queue.
final class WatchSession {
    private var realm: Realm?
    private var token: NotificationToken?
    private let out = Output()
    private(set) var failure: (any Error)?
    /// Signalled when the watch fails, to end it.
    private let finished: DispatchSemaphore

    init(stop: DispatchSemaphore) { finished = stop }

    func start(dbpath: String, key: EncryptionKey?, query: QueryOptions, queue: DispatchQueue) throws {
        let realm = try DatabaseAccess.openRealm(dbpath, readOnly: true, key: key, queue: queue)
        let results = try query.results(in: realm)
        self.realm = realm
        token = results.observe { [weak self] change in
            guard let self else { return }
            do {
                switch change {
                case .initial(let r):
                    let count = try r.evaluatedCount()
                    try self.out.line("initial: \(count) \(count == 1 ? "object" : "objects")")
                case .update(let r, let deletions, let insertions, let modifications):
                    let count = try r.evaluatedCount()
                    try self.out.line("change: insertions \(insertions), deletions \(deletions), modifications \(modifications); \(count) \(count == 1 ? "object" : "objects")")
                case .error(let e):
                    throw e
                }
                try self.out.flush()
            } catch {
                // Reported from the main thread once the watch has stopped.
                if self.failure == nil { self.failure = error }
                self.finished.signal()
            }
        }
    }

    func stop() {
        token?.invalidate()
        token = nil
        realm = nil
        do { try out.flush() } catch { if failure == nil { failure = error } }
    }
}
