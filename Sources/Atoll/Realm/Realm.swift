public import Foundation
import AtollStorage
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A Realm: a view of one database (file or in-memory) at one version, confined to the thread
/// or dispatch queue that opened it.
///
/// ```swift
/// let realm = try Realm()
/// let dogs = realm.objects(Dog.self).filter("age > 2")
/// try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
/// ```
/// A Realm reads one version until it is refreshed: `refresh()`, the start of a write, or
/// automatically (`autorefresh`) when it was opened with a dispatch queue. Each `Realm(...)` is
/// a new instance (Swift initializers cannot hand back an existing one); instances of one
/// thread share the database, and their write transactions cannot nest.
///
/// A Realm and its live objects belong to the thread or queue that opened them: throwing APIs
/// throw `.wrongThread` elsewhere, and accessors stop the program with a clear message. Use
/// `ThreadSafeReference` or `freeze()` to pass objects to other threads.
public final class Realm {
    /// The configuration the realm was opened with.
    public let configuration: Configuration
    let database: Database
    let confinement: Confinement
    /// The transaction the realm reads through: a read snapshot, or the open write. After
    /// `invalidate()` the snapshot is closed and the next read opens the newest version.
    @exclusivity(unchecked) private var _transaction: Transaction
    @exclusivity(unchecked) private var isIdle = false
    @exclusivity(unchecked) private(set) var writeTransaction: WriteTransaction?
    /// Changes whenever `transaction` does (row positions cached by objects are per stamp).
    @exclusivity(unchecked) private(set) var stamp: UInt64 = 1
    private var bindings: [ObjectIdentifier: ClassBinding] = [:] {
        didSet { lastBinding = nil }
    }
    /// The binding used last (most code works with one class at a time).
    @exclusivity(unchecked) private var lastBinding: ClassBinding?
    /// The table used last, in realm state `lastTableStamp`.
    @exclusivity(unchecked) private var lastTable: Table?
    @exclusivity(unchecked) private var lastTableStamp: UInt64 = 0
    /// Frozen realms are read from any thread: their bindings are made under this lock.
    private let frozenBindingsLock = NSLock()
    /// The classes of `configuration.objectTypes` and those they link to; nil: every class.
    private let subsetIdentifiers: Set<ObjectIdentifier>?
    /// The last frozen realm made by `freeze()`, reused while the version is the same.
    private weak var frozenCache: Realm?
    var bindingsGeneration: UInt64
    /// Whether this is a frozen snapshot (see `freeze()`).
    public let isFrozen: Bool
    /// The first error of the current write (see `recordError`).
    private(set) var pendingError: AtollError?
    /// Changes made by the current write, pending delivery to observers at commit.
    let observers = ObserverRegistry()
    /// When true (and the realm has a dispatch queue), commits by other threads or processes
    /// refresh the realm and deliver notifications on its queue.
    public var autorefresh = true
    /// Evaluations of live collections' queries (see `_queryEvaluationCount`).
    var queryEvaluations = 0
    /// Column values of the object being added (ObjectWriter), kept between adds so that adding
    /// one object allocates no array.
    var insertScratch: [StorageValue?] = []
    var coordinator: RealmCoordinator?
    /// A failure of `beginWrite()` (which cannot throw), reported by `commitWrite()`.
    var startupError: AtollError?
    /// Queued `beginAsyncWrite` blocks and `commitAsyncWrite` completions (AsyncWrites.swift).
    let asyncWrites = AsyncWriteQueue()

    // MARK: opening

    /// Opens (or returns this thread's open) Realm for `configuration`.
    public convenience init(configuration: Configuration = .defaultConfiguration) throws {
        try self.init(configuration: configuration, queue: nil)
    }

    /// Opens a Realm confined to `queue` (nil: the current thread). A queue-confined Realm
    /// refreshes itself and delivers notifications on its queue when others commit.
    public convenience init(configuration: Configuration = .defaultConfiguration, queue: DispatchQueue?) throws {
        try self.init(configuration: configuration, confinement: Confinement.current(queue: queue))
    }

    /// Opens a Realm with the given confinement (a thread, a queue, or an actor: Realm+Actor).
    init(configuration: Configuration, confinement: Confinement) throws {
        self.configuration = configuration
        subsetIdentifiers = configuration.objectTypes.map { Set(SchemaSetup.closure(of: $0).map { ObjectIdentifier($0) }) }
        self.confinement = confinement
        isFrozen = false
        let opened = try RealmOpener.open(configuration)
        database = opened.database
        let read = try database.beginRead()
        _transaction = read
        bindingsGeneration = read.rootRecord.schemaGeneration
        if confinement.refreshScheduler != nil { coordinator = RealmCoordinator.shared(for: database) }
        coordinator?.register(self)
        if confinement.queue == nil, confinement.actor == nil, !confinement.isUnconfined { ThreadRealms.register(self) }
    }

    /// Whether `other` was opened with the same object subset (`objectTypes`).
    func hasSameObjectSubset(as other: Realm) -> Bool { subsetIdentifiers == other.subsetIdentifiers }

    /// A frozen realm reading `transaction` forever.
    init(frozenFrom source: Realm, transaction: ReadTransaction) {
        configuration = source.configuration
        subsetIdentifiers = source.subsetIdentifiers
        database = source.database
        confinement = .unconfined
        isFrozen = true
        hasRead = true
        transaction.isShared = true
        _transaction = transaction
        bindingsGeneration = transaction.rootRecord.schemaGeneration
        autorefresh = false
    }

    deinit {
        coordinator?.unregister(self)
        writeTransaction?.rollback()
        (_transaction as? ReadTransaction)?.close()
    }

    // MARK: confinement

    /// Throws `.wrongThread` when called off the realm's thread or queue.
    func checkThread() throws {
        guard confinement.isCurrent else {
            throw AtollError(.wrongThread, "this Realm was opened on \(confinement.description) and cannot be used from another thread; pass a ThreadSafeReference or a frozen object instead")
        }
    }

    /// Stops the program when called off the realm's thread: for accessors that cannot throw.
    @inline(__always)
    func verifyThread() {
        if !confinement.isCurrent {
            atollProgrammerError("Realm accessed from the wrong thread: it was opened on \(confinement.description). Use ThreadSafeReference or freeze() to pass objects between threads.")
        }
    }

    // MARK: state

    /// The transaction reads go through, reopened at the newest version after `invalidate()`.
    var transaction: Transaction {
        @inline(__always) get {
            if isIdle { reopenAfterInvalidate() }
            // Frozen realms start with it set, so threads reading them only read it.
            if !hasRead { hasRead = true }
            return _transaction
        }
    }

    /// Whether anything read through this realm since it was opened. Until then it is like a
    /// RealmSwift realm without a read transaction: resolving a ThreadSafeReference starts it
    /// at the reference's version (`startReading(atVersionOf:)`).
    @exclusivity(unchecked) private(set) var hasRead = false

    /// Reads the version of `pinned` (older than the realm's) instead of the newest, for a realm
    /// that has read nothing yet. `refresh()` moves it on.
    func startReading(atVersionOf pinned: ReadTransaction) throws {
        guard !hasRead, !isFrozen, writeTransaction == nil, !isIdle, pinned.version < _transaction.version else { return }
        let read = try database.beginRead(sameVersionAs: pinned)
        (_transaction as? ReadTransaction)?.close()
        _transaction = read
        bumpStamp()
        dropBindingsIfSchemaChanged(read)
    }

    private func reopenAfterInvalidate() {
        let read: ReadTransaction
        do { read = try database.beginRead() } catch {
            // Reading on from the closed snapshot would find nothing: not an answer.
            readFailed(error, reading: "the newest version (reopening after invalidate() or a cancelled write)")
        }
        isIdle = false
        _transaction = read
        bumpStamp()
        dropBindingsIfSchemaChanged(read)
    }

    /// The version the realm currently reads.
    public var version: UInt64 { transaction.version }

    /// Whether a write transaction is open (`write { }` or `beginWrite()`).
    public var isInWriteTransaction: Bool { writeTransaction != nil }

    /// True when no objects are stored.
    public var isEmpty: Bool {
        for key in transaction.tableKeys {
            do {
                if try transaction.table(key).count > 0 { return false }
            } catch {
                readFailed(error, reading: "the object counts")
            }
        }
        return true
    }

    /// The schema of the realm's classes, by name: the configuration's `objectTypes` and the
    /// classes they link to, or without `objectTypes`, every class of the program used so far
    /// whose table the file has.
    public var schema: Schema {
        let types = configuration.objectTypes.map { SchemaSetup.closure(of: $0) }
            ?? ObjectSchema.knownTypes.filter { transaction.tableKey(named: $0.className()) != nil }
        return Schema(types.map { ObjectSchema.of($0) }.sorted { $0.className < $1.className })
    }

    func bumpStamp() { stamp &+= 1 }

    /// Changes made by the open write transaction so far (0 outside writes): with `stamp`, it
    /// tells whether row positions cached by objects still hold.
    var mutationCount: UInt64 {
        @inline(__always) get { writeTransaction?.mutationCount ?? 0 }
    }

    // MARK: classes and tables

    /// The binding of a model class to its table, creating the table when it does not exist.
    func binding(for type: Object.Type) throws -> ClassBinding {
        if isFrozen {
            frozenBindingsLock.lock()
            defer { frozenBindingsLock.unlock() }
            return try makeBinding(for: type)
        }
        return try makeBinding(for: type)
    }

    private func makeBinding(for type: Object.Type) throws -> ClassBinding {
        let id = ObjectIdentifier(type)
        if let last = lastBinding, last.typeID == id { return last }
        if let b = bindings[id] {
            lastBinding = b
            return b
        }
        guard type != Object.self else { throw Self.baseClassError }
        guard isInSubset(type) else {
            throw AtollError(.schemaMismatch, "class '\(type.className())' is not in this realm's objectTypes; add it to Realm.Configuration.objectTypes")
        }
        let schema = ObjectSchema.of(type)
        if let error = schema.error { throw error }
        guard let tableKey = transaction.tableKey(named: schema.className) else {
            try createTables(for: [type])
            return try makeBinding(for: type)
        }
        let b = try ClassBinding(schema: schema, tableKey: tableKey, transaction: transaction)
        bindings[id] = b
        return b
    }

    /// Like `binding(for:)` for APIs that cannot throw. An invalid model class is a programming
    /// error; a class the file cannot give (a read-only or frozen realm without its table, a
    /// schema that needs a migration) reads as having no objects, and writes of it fail.
    func requireBinding(for type: Object.Type) -> ClassBinding {
        do { return try binding(for: type) } catch {
            // Checked only on failure: the common path is one dictionary lookup.
            if type == Object.self { atollProgrammerError(Self.baseClassError.message) }
            if let error = ObjectSchema.of(type).error { atollProgrammerError("'\(type.className())' is not a valid model class: \(error.message)") }
            if !isInSubset(type) { atollProgrammerError("class '\(type.className())' is not in this realm's objectTypes; add it to Realm.Configuration.objectTypes") }
            return ClassBinding(unavailable: ObjectSchema.of(type))
        }
    }

    private static let baseClassError = AtollError(.schemaMismatch, "'Object' itself is not a model class of any realm; use a subclass of Object")

    /// Whether the configuration's `objectTypes` (with the classes they link to) include `type`;
    /// every class is included without `objectTypes`.
    func isInSubset(_ type: Object.Type) -> Bool {
        subsetIdentifiers?.contains(ObjectIdentifier(type)) ?? true
    }

    /// Creates the tables of classes (and the classes they link to) missing from the file.
    private func createTables(for types: [Object.Type]) throws {
        guard !isFrozen, !configuration.readOnly else {
            throw AtollError(.schemaMismatch, "class '\(types.map { $0.className() }.joined(separator: ", "))' is not in the \(isFrozen ? "frozen" : "read-only") realm's schema")
        }
        if let w = writeTransaction {
            try SchemaSetup.createMissingTables(for: types, in: w)
            return
        }
        // Outside a write: create them in a transaction of their own, then read the new version.
        let w = try database.beginWrite()
        do {
            try SchemaSetup.createMissingTables(for: types, in: w)
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
        try advance(notify: true)
    }

    func table(_ binding: ClassBinding) throws -> Table {
        // Frozen realms are read from several threads: no shared cache.
        if !isFrozen, lastTableStamp == stamp, let t = lastTable, t.key == binding.tableKey { return t }
        let t = try transaction.table(binding.tableKey)
        if !isFrozen {
            lastTable = t
            lastTableStamp = stamp
        }
        return t
    }

    /// A managed object for `key` of a model class (a link's target).
    func makeObject<T: Object>(_ type: T.Type, key: ObjectKey) -> T? {
        makeObject(type, key: key, binding: requireBinding(for: type))
    }

    func makeObject<T: Object>(_ type: T.Type, key: ObjectKey, binding b: ClassBinding, table: Table? = nil, row: RowHandle? = nil) -> T {
        // `type.init()`, not `T()`: callers may pass a subclass through an `Object.Type`.
        let object = InitContext.managedCreation(of: type) { type.init() }
        let state = ManagedObjectState(realm: self, binding: b, key: key)
        if let table, let row { state.seed(table: table, row: row) }
        object._managed = state
        return object
    }

    /// `makeObject` for a row of a snapshot page: the row is handed over as plain values (no
    /// optional row handle to copy, with the reference counting of its leaf).
    func makeObject<T: Object>(_ type: T.Type, key: ObjectKey, binding b: ClassBinding, table: Table, page: ClusterLeafPage, row: Int) -> T {
        let object = InitContext.managedCreation(of: type) { type.init() }
        let state = ManagedObjectState(realm: self, binding: b, key: key)
        state.seed(table: table, page: page, row: row)
        object._managed = state
        return object
    }

    /// A managed object of the class bound to table `tableKey`.
    func makeObject(tableKey: TableKey, key: ObjectKey) -> Object? {
        if let b = bindings.values.first(where: { $0.tableKey == tableKey }) { return makeObject(b.schema.objectType, key: key, binding: b) }
        // Bindings are made on first use (and again after a commit): a class this realm has not
        // bound yet is found by its table's name among the program's model classes.
        guard let name = transaction.spec(of: tableKey)?.name,
              let type = ObjectSchema.knownTypes.first(where: { $0.className() == name && isInSubset($0) }) else { return nil }
        let b = requireBinding(for: type)
        guard b.tableKey == tableKey else { return nil }
        return makeObject(type, key: key, binding: b)
    }

    // MARK: reading

    /// All objects of a class, as live `Results`.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        verifyThread()
        return Results(realm: self, binding: requireBinding(for: type))
    }

    /// The object with the given primary key, or nil.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        verifyThread()
        let b = requireBinding(for: type)
        guard b.hasPrimaryKey else {
            atollProgrammerError("'\(type.className())' has no primary key; declare one with @Persisted(primaryKey: true) or primaryKey()")
        }
        // A key of the wrong type finds nothing (a question about the argument, not the file).
        guard let value = PrimaryKeyConversion.direct(key, b.primaryKeyKind) ?? (try? b.schema.primaryKeyProperty?.storageValue(from: key, realm: self)) else {
            return nil
        }
        let t: Table, found: RowHandle?
        do {
            guard let present = try tableIfPresent(b) else { return nil }
            t = present
            found = try t.locate(primaryKey: value)
        } catch {
            readFailed(error, reading: "the '\(type.className())' object with primary key \(key)")
        }
        guard let row = found else { return nil }
        if let page = row.leaf.page { return makeObject(type, key: row.key, binding: b, table: t, page: page, row: row.row) }
        return makeObject(type, key: row.key, binding: b, table: t, row: row)
    }

    // MARK: versions

    /// Moves to the newest version, delivering notifications. Returns whether anything changed.
    ///
    /// A newest version that cannot be read (a damaged file, too many readers) stops the
    /// program, since "nothing changed" would not be true (README, "Failed reads"); use
    /// `refreshThrowing()` to get the error instead.
    @discardableResult
    public func refresh() -> Bool {
        verifyThread()
        do { return try refreshThrowing() } catch {
            readFailed(error, reading: "the newest version")
        }
    }

    /// Like `refresh()`, throwing when the newest version cannot be read.
    @discardableResult
    public func refreshThrowing() throws -> Bool {
        try checkThread()
        guard !isFrozen, writeTransaction == nil else { return false }
        let before = transaction.version
        try advance(notify: true)
        return transaction.version != before
    }

    /// Reads the newest version; computes and delivers notifications for the changes.
    func advance(notify: Bool) throws {
        guard !isFrozen else { return }
        guard database.latestVersion != transaction.version else { return }
        let old = transaction
        let new = try database.beginRead()
        _transaction = new
        bumpStamp()
        if new.rootRecord.schemaGeneration != bindingsGeneration {
            bindings.removeAll()
            bindingsGeneration = new.rootRecord.schemaGeneration
        }
        if notify { observers.deliver(realm: self, oldVersion: old.version, new: new, ownLog: nil) }
        (old as? ReadTransaction)?.close()
    }

    /// Releases the version this realm reads, so commits elsewhere can reuse its pages: call it
    /// before a long pause of a thread that read data it no longer needs. A write in progress is
    /// cancelled. The next read opens the newest version (without notifications for what
    /// changed in between); objects and results read before stay usable and re-read then.
    public func invalidate() {
        verifyThread()
        guard !isFrozen else { return }
        if writeTransaction != nil { cancelWrite() }
        guard !isIdle, let read = _transaction as? ReadTransaction else { return }
        read.close()
        isIdle = true
        bumpStamp()
    }

    /// Makes the next read open the newest version (after a cancelled write whose base
    /// version could not be reopened at once).
    func reopenOnNextRead() {
        isIdle = true
        bumpStamp()
    }

    // MARK: errors inside writes

    /// Records the first failure of a non-throwing write API (`add`, `create`, a setter); the
    /// enclosing `write` or `commitWrite` then throws it and nothing is committed.
    func recordError(_ error: AtollError) {
        if pendingError == nil { pendingError = error }
    }

    func recordError(_ error: any Swift.Error) {
        recordError(error as? AtollError ?? AtollError(.invalidArgument, "\(error)"))
    }

    /// Runs a write API body, turning any error into the pending error of the write.
    func performWrite(_ what: String, _ body: (WriteTransaction) throws -> Void) {
        verifyThread()
        guard let w = writeTransaction else {
            // The write could not begin (beginWrite(), an async write): commit reports why.
            if startupError != nil { return }
            atollProgrammerError("\(what) must be called inside a write transaction (realm.write { ... } or beginWrite())")
        }
        guard pendingError == nil else { return }
        do { try body(w) } catch { recordError(error) }
    }

    // MARK: write transaction plumbing

    func setWriteTransaction(_ w: WriteTransaction?) {
        writeTransaction = w
        WritingRealms.note(self, writing: w != nil)
        if let w {
            _transaction = w
            isIdle = false
        }
        bumpStamp()
    }

    func replaceTransaction(_ t: Transaction) {
        _transaction = t
        isIdle = false
        bumpStamp()
    }

    func clearPendingError() { pendingError = nil }

    func dropBindings() { bindings.removeAll() }

    /// Every bound class.
    var allBindings: [ClassBinding] { Array(bindings.values) }

    // MARK: freezing

    /// An immutable snapshot of this realm's current version, usable from any thread. Its
    /// objects never change; it keeps its version pinned until released.
    public func freeze() -> Realm {
        verifyThread()
        if isFrozen { return self }
        if isInWriteTransaction {
            atollProgrammerError("cannot freeze inside a write transaction: its changes are not committed yet; freeze after the commit")
        }
        do { return try freezeThrowing() } catch {
            atollProgrammerError("cannot pin version \(transaction.version) to freeze it: \(error); release frozen objects or Realm instances")
        }
    }

    /// `freeze()`, throwing when the version cannot be pinned (no free reader slot, too many
    /// active versions), for callers that report instead of stopping (change streams).
    func freezeThrowing() throws -> Realm {
        if isFrozen { return self }
        if let cached = frozenCache, cached.version == transaction.version { return cached }
        let read = try database.beginRead(sameVersionAs: transaction)
        let frozen = Realm(frozenFrom: self, transaction: read)
        frozenCache = frozen
        return frozen
    }

    /// A live realm for this frozen one, on the calling thread: the live realm of the same file
    /// and object subset the thread already has open (the most recently opened one), at the
    /// version it reads, as RealmSwift returns its thread-cached instance; with none, a realm
    /// opened at the newest version. RealmSwift's non-throwing signature: the frozen realm
    /// proves the file opens; a failure to open it again, such as the file deleted meanwhile,
    /// stops the program.
    public func thaw() -> Realm {
        guard isFrozen else { return self }
        return Realm.liveForThaw(of: self)
    }

    // MARK: files

    /// Deletes the data file of `configuration` and its auxiliary files. Returns whether a file
    /// existed. Fails with `.fileLocked` while the file is open.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        guard let url = configuration.fileURL, configuration.inMemoryIdentifier == nil else { return false }
        let path = url.path
        if Database.isOpen(path: path) {
            throw AtollError(.fileLocked, "'\(path)' is open; close every Realm on it before deleting its files")
        }
        var existed = false
        for p in [path, DatabaseConfiguration.lockPath(for: path), path + ".note", path + ".compacting"] {
            if unlink(p) == 0 { existed = existed || p == path }
        }
        return existed
    }

    /// Writes a compacted copy of the current version to `fileURL` (which must not exist),
    /// encrypted with the 64-byte `encryptionKey`, or unencrypted when it is nil (as in Realm):
    /// this encrypts, decrypts or re-keys a realm.
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        try checkThread()
        let key = try encryptionKey.map { try EncryptionKey(bytes: $0) }
        try transaction.writeCopy(to: fileURL.path, encryptionKey: key)
    }
}

extension Realm {
    /// How many times the queries of this realm's live collections were evaluated: lets tests
    /// check that a commit to an unrelated table re-runs nothing.
    @_spi(AtollTesting) public var _queryEvaluationCount: Int { queryEvaluations }
}
