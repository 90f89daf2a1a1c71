import AtollStorage

// Notifications delivered on an actor (RealmSwift 10.39 and later): the observed value is
// passed to the actor as a ThreadSafeReference, resolved there in a realm isolated to the actor,
// and observed in that realm, which refreshes itself on the actor when others commit.

extension Results {
    /// Calls `block` on `actor` with `.initial`, then `.update` after every change that affects
    /// these results, each time with results that belong to the actor's realm.
    ///
    /// ```swift
    /// let token = await dogs.observe(on: store) { store, change in store.apply(change) }
    /// ```
    /// Keep the token; `invalidate()` stops delivery. Cancelling the calling task before the
    /// registration is made registers nothing.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Results<Element>>) -> Void) async -> NotificationToken
    {
        core.realm.verifyThread()
        core.binding.schema.requireObservable(keyPaths)
        return await Realm.observe(ThreadSafeReference(to: self), configuration: core.realm.configuration, on: actor,
                                   onError: { actor, error in block(actor, .error(error)) }) { actor, results in
            results.observe(keyPaths: keyPaths) { change in deliver(change, to: block, on: actor) }
        }
    }
}

extension List {
    /// Calls `block` on `actor` with `.initial`, then `.update` after every change to the list,
    /// each time with the list as read by the actor's realm (see `Results.observe(on:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<List<Element>>) -> Void) async -> NotificationToken
    {
        guard let m = managed else { atollProgrammerError("only managed lists can be observed; add the object to a realm first") }
        m.realm.verifyThread()
        if let objectType = Element.self as? Object.Type { ObjectSchema.of(objectType).requireObservable(keyPaths) }
        return await Realm.observe(ThreadSafeReference(to: self), configuration: m.realm.configuration, on: actor,
                                   onError: { actor, error in block(actor, .error(error)) }) { actor, list in
            list.observe(keyPaths: keyPaths) { change in deliver(change, to: block, on: actor) }
        }
    }
}

extension Object {
    /// Calls `block` on `actor` after every commit that changes this object (`.change`, with
    /// the object as read by the actor's realm) or deletes it (`.deleted`).
    public func observe<A: Actor, T: Object>(keyPaths: [String]? = nil, on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken
    {
        guard let m = _managed, self is T else { atollProgrammerError("only managed objects can be observed; add the object to a realm first") }
        m.realm.verifyThread()
        m.schema.requireObservable(keyPaths)
        return await Realm.observe(ThreadSafeReference(to: self), configuration: m.realm.configuration, on: actor,
                                   onError: { actor, error in block(actor, .error(error)) }) { actor, object in
            object.observe(keyPaths: keyPaths) { (change: ObjectChange<T>) in deliver(change, to: block, on: actor) }
        }
    }
}

extension ProjectionObservable {
    /// Calls `block` on `actor` after every commit that changes a projected property of the
    /// object (`.change`, with a projection of the object as read by the actor's realm) or
    /// deletes it (`.deleted`); `keyPaths` as for `observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// let token = await view.observe(keyPaths: ["name"], on: store) { store, change in store.apply(change) }
    /// ```
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken
    where Self: SendableMetatype {
        guard let m = rootObject._managed else { atollProgrammerError("only projections of managed objects can be observed; add the object to a realm first") }
        m.realm.verifyThread()
        return await Realm.observe(ThreadSafeReference(to: rootObject), configuration: m.realm.configuration, on: actor,
                                   onError: { actor, error in block(actor, .error(error)) }) { actor, object in
            Self(projecting: object).observe(keyPaths: keyPaths) { (change: ObjectChange<Self>) in deliver(change, to: block, on: actor) }
        }
    }

    /// `observe(keyPaths:on:_:)` on an actor with key paths of the projection (`[\.name]`),
    /// each meaning the stored paths its `@Projected` key path reads.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken
    where Self: SendableMetatype {
        _ = ProjectionSchemaCache.schema(of: self)
        let names = keyPaths.flatMap { keyPath in
            KeyPathRecorder.paths(keyPath, from: Root.self) { root in _ = Self(projecting: root)[keyPath: keyPath] }
        }
        return await observe(keyPaths: names.isEmpty ? nil : names, on: actor, block)
    }
}

extension Realm {
    /// Resolves `reference` in a realm isolated to `actor` (opened there) and registers the
    /// observer with `register`. The returned token releases that realm on the actor. A value
    /// deleted before it reached the actor registers nothing (RealmSwift does the same).
    static func observe<A: Actor, T: ThreadConfined & SendableMetatype>(
        _ reference: ThreadSafeReference<T>, configuration: Configuration, on actor: A,
        onError: @Sendable @escaping (isolated A, any Swift.Error) -> Void,
        register: @Sendable @escaping (isolated A, T) -> NotificationToken
    ) async -> NotificationToken {
        await actor.atollRegister { actor in
            guard !Task.isCancelled else { return NotificationToken() }
            let realm: Realm
            do {
                realm = try Realm(configuration: configuration, confinement: .isolated(to: actor))
            } catch {
                onError(actor, error)
                return NotificationToken()
            }
            guard let value = realm.resolve(reference) else { return NotificationToken() }
            let inner = register(actor, value)
            // The realm lives as long as the registration, and goes on the actor.
            let kept = RealmHandoff(realm)
            return NotificationToken(flag: inner.flag, cleanup: {
                inner.invalidate()
                RealmScheduler.actor(actor).perform { withExtendedLifetime(kept) {} }
            })
        }
    }
}

/// Calls an observer's block with its actor. The realm delivering `change` is isolated to
/// `actor` and calls this on it (checked by `assumeIsolated`): the change stays where it is.
private func deliver<A: Actor, Change>(_ change: Change, to block: @Sendable (isolated A, Change) -> Void, on actor: A) {
    let stays = QueueHandoff(change)
    actor.assumeIsolated { block($0, stays.value) }
}

extension Actor {
    /// Runs `body` isolated to this actor and returns its token.
    func atollRegister(_ body: @Sendable (isolated Self) -> NotificationToken) -> NotificationToken { body(self) }
}
