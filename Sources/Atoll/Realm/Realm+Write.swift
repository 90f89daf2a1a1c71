import AtollStorage
#if canImport(Glibc)
import Glibc
#endif

extension Realm {
    /// Runs `block` in a write transaction and commits it. If `block` throws, or an operation
    /// inside it was invalid (a duplicate primary key, nil for a required property, a value of
    /// the wrong type), nothing is written and the error is thrown.
    ///
    /// RealmSwift stops the program with an Objective-C exception in those cases; Atoll throws.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try checkThread()
        try beginWriteThrowing()
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Starts a write transaction (waiting for other writers), first moving the realm to the
    /// newest version. If the transaction cannot start, the failure is thrown by `commitWrite`.
    public func beginWrite() {
        verifyThread()
        do { try beginWriteThrowing() } catch {
            // Keep RealmSwift's non-throwing signature: remember the failure for commitWrite.
            startupError = error as? AtollError ?? AtollError(.ioError, "\(error)")
        }
    }

    func beginWriteThrowing() throws {
        try checkCanBeginWrite()
        // An async write of this realm waiting for (or holding) the lock would wait for this
        // realm's queue or actor, which this write blocks: take its lock, or poll beside it.
        if let acquired = takeAcquiredAsyncWrite() {
            try installWrite(acquired)
        } else if !asyncWrites.outstanding.isEmpty {
            try installWrite(try acquireBesideAsyncWrites())
        } else {
            try advance(notify: true)
            try installWrite(try database.beginWrite())
        }
    }

    /// Throws when a write cannot begin on this realm now.
    func checkCanBeginWrite() throws {
        try checkThread()
        guard !isFrozen else { throw AtollError(.invalidTransaction, "a frozen realm cannot be written") }
        guard !configuration.readOnly else { throw AtollError(.readOnly, "this realm was opened read-only") }
        guard writeTransaction == nil else { throw AtollError(.invalidTransaction, "the realm is already in a write transaction") }
    }

    /// Makes `w` (the writer lock held) the realm's open write, first catching up with commits
    /// made since the realm's version (delivering their notifications). `w` is rolled back if
    /// that fails.
    func installWrite(_ w: WriteTransaction) throws {
        do {
            if w.version != transaction.version {
                let read = try database.beginRead()
                observers.deliver(realm: self, oldVersion: transaction.version, new: read, ownLog: nil)
                (transaction as? ReadTransaction)?.close()
                replaceTransaction(read)
            }
        } catch {
            w.rollback()
            throw error
        }
        // The write protects its base version; releasing the read keeps the commit from storing
        // history nobody needs.
        (transaction as? ReadTransaction)?.close()
        clearPendingError()
        setWriteTransaction(w)
    }

    /// Takes the writer lock while this realm has async writes on the writer line: polls
    /// (a millisecond apart) instead of blocking, and takes a lock the line acquired for them.
    private func acquireBesideAsyncWrites() throws -> WriteTransaction {
        while true {
            if let acquired = takeAcquiredAsyncWrite() { return acquired }
            if let w = try database.beginWriteForHandoff(waiting: false) { return w }
            usleep(1000)
        }
    }

    /// Commits the current write transaction.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        try checkThread()
        if let e = startupError {
            startupError = nil
            throw e
        }
        guard let w = writeTransaction else { throw AtollError(.invalidTransaction, "commitWrite() without beginWrite()") }
        if let error = pendingError {
            cancelWrite()
            throw error
        }
        let log = w.logBytes
        do {
            try w.commit()
        } catch {
            cancelWrite()
            throw error
        }
        let read: ReadTransaction
        do { read = try database.beginRead() } catch {
            // The commit is durable; only reading it failed (no reader slot free): the realm
            // reads the newest version on its next read, without notifications for this write.
            setWriteTransaction(nil)
            reopenOnNextRead()
            let cause = error as? AtollError ?? AtollError(.ioError, "\(error)")
            throw AtollError(cause.kind, "the write was committed, but this realm cannot read the new version: \(cause.message)")
        }
        setWriteTransaction(nil)
        replaceTransaction(read)
        dropBindingsIfSchemaChanged(read)
        observers.deliver(realm: self, oldVersion: w.version, new: read, ownLog: log, skipping: tokens)
    }

    /// Discards every change of the current write transaction. Calling it outside a write
    /// transaction is a programming error (RealmSwift raises).
    public func cancelWrite() {
        verifyThread()
        if startupError != nil {
            // beginWrite() failed: as far as the caller knows, a write is open.
            startupError = nil
            return
        }
        guard let w = writeTransaction else {
            atollProgrammerError("cancelWrite() called outside a write transaction; call it only after beginWrite()")
        }
        w.rollback()
        setWriteTransaction(nil)
        clearPendingError()
        // The realm must not keep reading the rolled-back write: when the newest version
        // cannot be opened now, the next read opens it (and stops the program if it still
        // cannot: README, "Failed reads").
        do { replaceTransaction(try database.beginRead()) } catch { reopenOnNextRead() }
        dropBindings()
    }

    // MARK: adding

    /// Adds an unmanaged object (and every unmanaged object it links to) to the realm; the
    /// instance becomes managed. With `.modified` or `.all`, an existing object with the same
    /// primary key is updated instead.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        performWrite("add(_:)") { w in
            try ObjectWriter.requireTopLevel(type(of: object), "add")
            if object._managed == nil { try ObjectWriter.requireUpdatable(type(of: object), update) }
            var writer = ObjectWriter(realm: self, transaction: w, update: update, singleObject: true)
            _ = try writer.add(object)
            writer.finish()
        }
    }

    /// Adds every object of a sequence, as `add(_:update:)` does for one.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        performWrite("add(_:)") { w in
            var writer = ObjectWriter(realm: self, transaction: w, update: update)
            for o in objects {
                try ObjectWriter.requireTopLevel(type(of: o), "add")
                if o._managed == nil { try ObjectWriter.requireUpdatable(type(of: o), update) }
                _ = try writer.add(o)
            }
            writer.finish()
        }
    }

    /// Creates an object from a dictionary (`["name": "Rex"]`), an array of every persisted
    /// property in declaration order, JSON from JSONSerialization, or another object (also one
    /// from another realm: a copy). Nested dictionaries and arrays create linked objects.
    /// With `.modified`/`.all`, an existing object with the same primary key is updated and the
    /// properties not given stay unchanged.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        var created: T?
        performWrite("create(_:value:)") { w in
            try ObjectWriter.requireTopLevel(type, "create")
            try ObjectWriter.requireUpdatable(type, update)
            var writer = ObjectWriter(realm: self, transaction: w, update: update)
            let key = try writer.create(type, value: value)
            writer.finish()
            created = makeObject(type, key: key, binding: try binding(for: type))
        }
        // After a failed operation the write will throw at commit; hand back an unmanaged object.
        return created ?? T()
    }

    // MARK: deleting

    /// Deletes a managed object. Links to it become nil and lists drop it.
    public func delete(_ object: Object) {
        performWrite("delete(_:)") { _ in
            let m = try ownedState(of: object, for: "delete")
            let t = try table(m.binding)
            guard try t.contains(m.key) else { throw AtollError(.invalidatedObject, "the object was already deleted") }
            try t.erase(m.key)
        }
    }

    /// Deletes every object of a sequence (Results, List, LinkingObjects or an array). An
    /// unmanaged object or one of another realm fails the write, and nothing is deleted.
    public func delete<S: Sequence>(_ objects: S) where S.Element: Object {
        performWrite("delete(_:)") { _ in
            // Every object is checked before the first is deleted, and the keys are taken
            // first: deleting changes live sequences (Results, a List) being read.
            var targets: [(ClassBinding, ObjectKey)] = []
            for object in objects {
                let m = try ownedState(of: object, for: "delete")
                targets.append((m.binding, m.key))
            }
            for (b, key) in targets {
                let t = try table(b)
                // A sequence may hold an object twice (a List); the first deletes it.
                if try t.contains(key) { try t.erase(key) }
            }
        }
    }

    /// Deletes every object of every class in the realm.
    public func deleteAll() {
        performWrite("deleteAll()") { w in
            for key in w.tableKeys { try w.table(key).clear() }
        }
    }

    func dropBindingsIfSchemaChanged(_ read: Transaction) {
        if read.rootRecord.schemaGeneration != bindingsGeneration {
            dropBindings()
            bindingsGeneration = read.rootRecord.schemaGeneration
        }
    }
}
