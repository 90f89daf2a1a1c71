import AtollStorage

/// Actor-isolated realms (RealmSwift 10.39 and later).
///
/// ```swift
/// actor Store {
///     var realm: Realm!
///     func setUp() async throws { realm = try await Realm(actor: self) }
///     func add(_ name: String) async throws {
///         try await realm.asyncWrite { realm.create(Dog.self, value: ["name": name]) }
///         let dogs = realm.objects(Dog.self)     // usable after the await, on any thread
///         _ = dogs.count
///     }
/// }
/// ```
/// A realm isolated to an actor belongs to the actor, not to a thread: code isolated to the
/// actor uses it and its objects across suspension points, whatever thread the actor runs on
/// after each one. Elsewhere, throwing APIs throw `.wrongThread` and accessors stop the program.
/// It refreshes itself (autorefresh) and delivers notifications on the actor when others
/// commit, and supports `asyncWrite` and `asyncRefresh`.
extension Realm {
    /// Opens a Realm isolated to `actor`.
    ///
    /// The work of a first open (creating, migrating or compacting the file) runs on a thread
    /// outside Swift's cooperative pool. The caller need not be isolated to `actor`, but only
    /// code isolated to it can use the realm.
    ///
    /// - Throws: `AtollError` when the realm cannot be opened; `CancellationError` when the task
    ///   is cancelled.
    public convenience init<A: Actor>(configuration: Realm.Configuration = .defaultConfiguration, actor: A) async throws {
        let kept = try await Realm.prepareOpen(configuration)
        try self.init(configuration: configuration, confinement: .isolated(to: actor))
        withExtendedLifetime(kept) {}
    }

    /// Opens a Realm isolated to the calling actor (`#isolation`), as `init(configuration:actor:)`.
    public static func open(configuration: Realm.Configuration = .defaultConfiguration,
                            _isolation actor: isolated any Actor = #isolation) async throws -> Realm {
        let kept = try await prepareOpen(configuration)
        defer { withExtendedLifetime(kept) {} }
        return try Realm(configuration: configuration, confinement: .isolated(to: actor))
    }

    /// Opens a Realm isolated to the calling actor, doing the work of opening the file (creating,
    /// migrating, compacting) on a thread outside Swift's cooperative pool. Atoll's name for
    /// `open(configuration:)`; RealmSwift's `asyncOpen` takes a callback instead.
    public static func asyncOpen(configuration: Realm.Configuration = .defaultConfiguration,
                                 _isolation actor: isolated any Actor = #isolation) async throws -> Realm {
        let kept = try await prepareOpen(configuration)
        defer { withExtendedLifetime(kept) {} }
        return try Realm(configuration: configuration, confinement: .isolated(to: actor))
    }

    /// Opens the database once on a blocking thread when the process does not have the file
    /// open yet (the expensive first open); the caller keeps the result until the realm on the
    /// actor has opened it too, so that open finds it open. In-memory realms open at once.
    private static func prepareOpen(_ configuration: Realm.Configuration) async throws -> Database? {
        try Task.checkCancellation()
        guard configuration.inMemoryIdentifier == nil, let path = configuration.fileURL?.path, !Database.isOpen(path: path) else {
            return nil
        }
        let opened = try await BlockingLine.run { try RealmOpener.open(configuration).database }
        try Task.checkCancellation()
        return opened
    }

    /// Moves the realm to the newest version and delivers notifications, like `refresh()`,
    /// for async code. Returns whether the version changed.
    ///
    /// Atoll reads the newest version without waiting for writers, so this never suspends for
    /// long; it exists so that code written for RealmSwift compiles unchanged. Like `refresh()`,
    /// a newest version that cannot be read stops the program (README, "Failed reads").
    @discardableResult
    public func asyncRefresh(_isolation actor: isolated any Actor = #isolation) async -> Bool {
        refresh()
    }
}
