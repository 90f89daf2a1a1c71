import AtollStorage

extension Object {
    /// An immutable snapshot of this object at its realm's current version. A frozen object
    /// never changes, may be read from any thread (pass it in `Frozen` to cross isolation
    /// domains), and keeps its version pinned while it lives.
    ///
    /// ```swift
    /// let snapshot = Frozen(dog)             // or dog.freeze()
    /// Task.detached { print(snapshot.name) }
    /// ```
    /// Freezing an unmanaged object, or inside a write transaction, is a programming error.
    public func freeze() -> Self {
        guard let m = _managed else { atollProgrammerError("an unmanaged '\(objectSchema.className)' object cannot be frozen; add it to a realm first") }
        if m.realm.isFrozen { return self }
        m.realm.verifyThread()
        let frozen = m.realm.freeze()
        return frozen.makeObject(Swift.type(of: self), key: m.key, binding: frozen.requireBinding(for: Swift.type(of: self)))
    }

    /// The live object for a frozen one, in the calling thread's live realm of the same file at
    /// the version it reads (a realm opened here at the newest version when the thread has
    /// none, see ThreadRealms.swift); nil when the object does not exist there (deleted, or
    /// created by a commit that realm has not refreshed to). A live object returns itself;
    /// thawing an unmanaged object is a programming error (as in RealmSwift). A realm that
    /// cannot be opened or read stops the program with the reason (README, "Failed reads").
    public func thaw() -> Self? {
        guard let m = _managed else { atollProgrammerError("an unmanaged '\(objectSchema.className)' object cannot be thawed; only frozen objects can") }
        guard m.realm.isFrozen else { return self }
        let live = Realm.liveForThaw(of: m.realm)
        let b = live.requireBinding(for: Swift.type(of: self))
        guard live.objectExists(b, m.key) else { return nil }
        return live.makeObject(Swift.type(of: self), key: m.key, binding: b)
    }
}

extension List {
    /// An immutable snapshot of this managed list, readable from any thread. An unmanaged list
    /// cannot be frozen (a programming error).
    public func freeze() -> List<Element> {
        guard let m = managed else { atollProgrammerError("an unmanaged List cannot be frozen") }
        if m.realm.isFrozen { return self }
        m.realm.verifyThread()
        let frozen = m.realm.freeze()
        return List(managed: Managed(realm: frozen, owner: frozen.requireBinding(for: m.owner.schema.objectType), key: m.key, column: m.column))
    }

    /// The live list for a frozen one, in the calling thread's live realm of the same file
    /// (as `Object.thaw()`); nil when its object does not exist there. A live list returns itself. A realm that cannot be opened or read stops the
    /// program with the reason (README, "Failed reads").
    public func thaw() -> List<Element>? {
        guard let m = managed, m.realm.isFrozen else { return self }
        let live = Realm.liveForThaw(of: m.realm)
        let b = live.requireBinding(for: m.owner.schema.objectType)
        guard live.objectExists(b, m.key) else { return nil }
        return List(managed: Managed(realm: live, owner: b, key: m.key, column: m.column))
    }
}

extension Realm {
    /// A live realm on the calling thread to thaw into; the error of one that cannot be
    /// opened stops the program (`thaw()` cannot throw, and nil means "deleted").
    static func openForThaw(_ configuration: Configuration) -> Realm {
        do { return try Realm(configuration: configuration) } catch {
            atollReadFailure(error, reading: "the live realm to thaw into",
                             in: configuration.fileURL?.path ?? configuration.inMemoryIdentifier ?? "an in-memory realm")
        }
    }

    /// Whether object `key` of a bound class exists in the realm's current state; stops the
    /// program when that cannot be read (for APIs that answer "deleted" with nil).
    func objectExists(_ binding: ClassBinding, _ key: ObjectKey) -> Bool {
        do {
            guard let table = try tableIfPresent(binding) else { return false }
            return try table.contains(key)
        } catch {
            readFailed(error, reading: "the '\(binding.schema.className)' object with key \(key.rawValue)")
        }
    }
}

/// A frozen object that can cross threads, tasks and actors: Swift cannot make a class
/// `Sendable` only while it is frozen, so the frozen object travels in this wrapper.
///
/// ```swift
/// let rex = Frozen(realm.object(ofType: Dog.self, forPrimaryKey: 1)!)
/// await Task.detached { print(rex.name, rex.owner?.name ?? "-") }.value
/// ```
/// Reading goes through `object` or directly by key path (`rex.name`).
@dynamicMemberLookup
public struct Frozen<Element: Object>: @unchecked Sendable {
    // Sendable: `object` is always frozen (the initializer freezes it): it reads one immutable,
    // pinned version through thread-safe lookups, and every setter of a frozen object stops the
    // program instead of writing.

    /// The frozen object.
    public let object: Element

    /// Freezes `object` (a managed object; freezing an unmanaged one is a programming error).
    public init(_ object: Element) {
        self.object = object.freeze()
    }

    /// A property of the frozen object (`frozenDog.name`).
    public subscript<Value>(dynamicMember keyPath: KeyPath<Element, Value>) -> Value {
        object[keyPath: keyPath]
    }
}
