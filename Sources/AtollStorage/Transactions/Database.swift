// Database: one open data file in this process, shared by every transaction on it.
//
// A process opens each file once: `Database.open` returns the same instance for the same path
// while it is alive, so the file is mapped once and the lock file's per-process locks (liveness,
// usage) are held by one open file description. Threads coordinate through `writerGate` (one
// writer per process) and the lock file (one writer across processes, reader slots).
//
// Reading without a lock file. A read-only open joins the lock file, or creates it (and removes
// it again on close, LockFile.swift). When it can do neither (read-only media: EROFS; a folder
// or lock file this user may not write: EACCES, EPERM) it reads *uncoordinated*: it takes the
// newest durable version at open and reads that one version for its whole life, with a private
// lock state instead of the shared one (no notifications of later commits). Such a reader is
// invisible in the reader table, yet a writer may exist (another user may write the folder, or
// the media may be remounted): copy-on-write would then reuse pages it reads. So it pins its
// version on the *data file* instead, with a shared open-file-description lock on the byte at
// `uncoordinatedPinOffset + version` (locks need no write access and vanish with the process),
// using the reader table's protocol: lock, then re-read the newest root record, retry if it
// moved. A writer takes the lowest such locked version as pinned (`oldestUncoordinatedPin`),
// exactly like a slot in the reader table, so it never reuses or truncates a page that version
// can see. Cost for everyone else: one F_OFD_GETLK per write transaction.

#if canImport(Glibc)
import Glibc
#endif
import CAtollShims
import Dispatch
import Synchronization

public final class Database: Sendable {
    public let configuration: DatabaseConfiguration
    let file: MappedFile
    /// The file's pages: in place, or through the decrypted mirror of an encrypted file.
    let store: PageStore
    /// The per-file keys of an encrypted file (nil: unencrypted).
    let cipher: PageCipher?
    private let header: FileHeader
    let lock: LockFile
    /// Serializes write transactions between threads of this process (the lock file's writer
    /// lock serializes processes, but not threads sharing one open file description).
    let writerGate = DispatchSemaphore(value: 1)
    /// The thread holding `writerGate`, so a second write on that thread fails instead of
    /// waiting for itself forever.
    private let writerThread = AtollLock<pthread_t?>(nil)
    private let schemaCache = AtollLock<SchemaSnapshot?>(nil)
    /// This process's reader slots on the file, one per pinned version (ReaderPins.swift).
    let readerPins: ReaderPins
    /// Whether a one-sync commit through this instance returned, so that closing it seals the
    /// newest commit (Database+Roots.swift, "Sealing").
    let sealOnClose = Atomic<Bool>(false)
    /// Leaves of this process's last commit, kept decoded for the next write transaction
    /// (CommittedLeafCache.swift).
    let committedLeaves = AtollLock(CommittedLeafCache())
    /// Asked by every write transaction of this process just before it commits (`setWriteGuard`).
    private let writeGuard = AtollLock<WriteGuard?>(nil)
    public let displayName: String
    public let fileId: [UInt8]
    /// Whether commits to this file may become durable with one sync (format 3 and later).
    let oneSyncCommits: Bool
    /// The version an uncoordinated read-only open reads (see "Reading without a lock file"); nil
    /// when the lock file coordinates this database.
    private let uncoordinatedRoot: RootRecord?

    /// Readers without a lock file pin version V with a shared lock on this offset + V of the
    /// data file (far beyond any page: a file holds at most 2^32 pages of 2^12 bytes).
    static let uncoordinatedPinOffset: Int64 = 1 << 50

    /// Whether this database reads one version without a lock file (read-only media).
    public var isUncoordinated: Bool { uncoordinatedRoot != nil }

    private static let registry = AtollLock<[String: WeakDatabase]>([:])

    private struct WeakDatabase: @unchecked Sendable {
        // Sendable: only read and written under the registry mutex.
        weak var database: Database?
    }

    /// Opens (or creates) a database, or returns the instance this process already has open.
    public static func open(_ configuration: DatabaseConfiguration) throws -> Database {
        let registryKey: String
        if let path = configuration.path {
            guard !path.isEmpty else { throw AtollError(.invalidArgument, "the database path is empty") }
            registryKey = "file:" + canonicalPath(path) + (configuration.readOnly ? ":ro" : "")
        } else if let id = configuration.inMemoryIdentifier {
            registryKey = "memory:" + id
        } else {
            throw AtollError(.invalidArgument, "a configuration needs a path or an in-memory identifier")
        }
        return try registry.withLock { map in
            if let existing = map[registryKey]?.database {
                // One instance per file and process: the key must be the one it was opened with.
                try checkEncryption(header: existing.header, key: configuration.encryptionKey, name: existing.displayName)
                return existing
            }
            let db = try Database(configuration)
            map[registryKey] = WeakDatabase(database: db)
            return db
        }
    }

    /// Whether a Database for `path` is alive in this process.
    public static func isOpen(path: String) -> Bool {
        let key = "file:" + canonicalPath(path)
        return registry.withLock { ($0[key]?.database != nil) || ($0[key + ":ro"]?.database != nil) }
    }

    /// An absolute path with symbolic links of the directory resolved (the file may not exist).
    static func canonicalPath(_ path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                absolute = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
            }
        }
        if let resolved = realpath(absolute, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return absolute
    }

    private init(_ configuration: DatabaseConfiguration) throws {
        self.configuration = configuration
        if configuration.path == nil, configuration.encryptionKey != nil {
            throw AtollError(.invalidArgument, "an in-memory database cannot be encrypted; remove the encryption key or use a file")
        }
        var created = false
        var uncoordinated = false
        if let path = configuration.path {
            displayName = path
            let exists = access(path, F_OK) == 0
            created = !exists
            if !exists {
                guard configuration.createIfMissing, !configuration.readOnly else {
                    throw AtollError(.fileNotFound, "no database at '\(path)'")
                }
            }
            if configuration.readOnly {
                if let joined = try LockFile.attachForReading(path: DatabaseConfiguration.lockPath(for: path)) {
                    lock = joined
                } else {
                    lock = try LockFile(path: nil)
                    uncoordinated = true
                }
            } else {
                lock = try LockFile(path: DatabaseConfiguration.lockPath(for: path))
            }
            file = try MappedFile(path: path, writable: !configuration.readOnly, create: !exists,
                                  reservationBytesMin: configuration.mappingReservationBytesMin)
        } else {
            displayName = "memory:\(configuration.inMemoryIdentifier ?? "")"
            lock = try LockFile(path: nil)
            file = try MappedFile(anonymousNamed: "atoll-" + (configuration.inMemoryIdentifier ?? ""))
        }
        readerPins = ReaderPins(lock: lock)
        if configuration.readOnly, try Self.needsInitialization(file) {
            // Another process may be creating the file right now, under the writer lock.
            _ = lock.waitForWriterToFinish(timeoutMilliseconds: 2_000)
            try file.refreshSize()
        }
        if try Self.needsInitialization(file) {
            guard !configuration.readOnly else {
                throw AtollError.corrupted(file.fileSizeBytes == 0 ? "'\(displayName)' is empty"
                    : "'\(displayName)' was never completely created (its creation was interrupted, e.g. by a power failure); open it writable to initialize it")
            }
            try Self.initializeNewFile(file: file, lock: lock, durability: configuration.durability,
                                       encryptionKey: configuration.encryptionKey)
            if created, configuration.durability == .full {
                // The new name must survive a power failure too (DurabilitySeam.swift).
                try DirectorySync.syncDirectory(containing: displayName)
            }
        }
        let header: FileHeader
        var root: RootRecord
        let cipher: PageCipher?
        do {
            (header, root, cipher) = try Self.readHeaderAndRoot(file: file, path: displayName, key: configuration.encryptionKey, excluding: lock.rejectedRecord)
        } catch let error as AtollError where error.kind == .notAnAtollFile || error.kind == .fileCorrupted {
            // Another process may be creating this file right now: it grows the file, then writes
            // the header and the first root record, all under the writer lock. Wait for that
            // lock (bounded: this thread may hold it through another instance) and look again.
            guard lock.waitForWriterToFinish(timeoutMilliseconds: 2_000) else { throw error }
            try file.refreshSize()
            (header, root, cipher) = try Self.readHeaderAndRoot(file: file, path: displayName, key: configuration.encryptionKey, excluding: lock.rejectedRecord)
        }
        self.header = header
        self.cipher = cipher
        fileId = header.fileId
        oneSyncCommits = header.formatVersion >= FileFormat.oneSyncCommitsVersion
        store = try PageStore(file: file, checksum: PageChecksum(formatVersion: header.formatVersion, fileId: header.fileId), cache: try cipher.map {
            try DecryptedPageCache(cipher: $0, name: "atoll-decrypted", reservationBytesMin: configuration.mappingReservationBytesMin)
        }, reservationBytesMin: configuration.mappingReservationBytesMin)
        // The newest record may name a commit a power failure interrupted (Database+Roots.swift).
        if uncoordinated {
            root = try Self.pinUncoordinated(root, file: file, store: store, lock: lock, cipher: cipher, path: displayName)
        } else {
            root = try Self.checkedNewestRoot(file: file, store: store, cipher: cipher, lock: lock, path: displayName)
        }
        uncoordinatedRoot = uncoordinated ? root : nil
        guard store.physicalBytes(pageCount: root.pageCount) <= file.fileSizeBytes else {
            throw AtollError.corrupted("'\(displayName)' is truncated: its newest version needs \(store.physicalBytes(pageCount: root.pageCount)) bytes, the file has \(file.fileSizeBytes)")
        }
        if lock.publishedVersion > root.version {
            // The lock file is ahead of the data file (it was replaced, e.g. by compaction):
            // the file is the truth.
            lock.setPublished(version: root.version)
        } else {
            lock.publish(version: root.version)
        }
    }

    /// Pins `newest` (the newest root record read) for a reader without a lock file, following
    /// the reader table's protocol: lock its version on the data file, re-read the newest root
    /// record, and move to it while it changed. Returns the record pinned.
    /// The version pinned is checked like a first open's (Database+Roots.swift), with `lock`,
    /// this reader's private lock state, remembering a record found incomplete.
    private static func pinUncoordinated(_ newest: RootRecord, file: MappedFile, store: PageStore, lock: LockFile,
                                         cipher: PageCipher?, path: String) throws -> RootRecord {
        var root = newest
        for _ in 0..<10_000 {
            let rc = atoll_ofd_lock(file.fd, 0, 0, uncoordinatedPinOffset + Int64(root.version), 1)
            guard rc == 0 else { throw AtollError.posix("pinning a version of", path: path, errno: rc) }
            let size = try file.refreshSize()
            let base = try file.mapping(covering: size)
            guard let found = RootRecord.newestSlot(in: base, cipher: cipher, excluding: lock.rejectedRecord) else {
                throw AtollError.corrupted("neither root slot of '\(path)' is valid")
            }
            let page = found.page, now = found.record
            if now.version == root.version {
                // Pinned: no writer reuses its pages from now on, so the check cannot race one.
                let slot = UnsafeRawPointer(base + Int(page) * FileFormat.pageSize)
                guard let problem = try CommitPageList.problem(with: now, slot: slot, fileBase: base, fileBytes: size, store: store),
                      !isSealed(now, slotPage: page, base: base, cipher: cipher) else {
                    return now
                }
                guard lock.rejectedRecord == nil else {
                    throw AtollError.corrupted("neither root slot of '\(path)' holds a complete commit (\(problem)); restore it from a backup")
                }
                lock.setRejectedRecord(RootRecord.identity(at: slot))
            }
            _ = atoll_ofd_unlock(file.fd, uncoordinatedPinOffset + Int64(root.version), 1)
            guard let next = RootRecord.newest(in: base, cipher: cipher, excluding: lock.rejectedRecord) else {
                throw AtollError.corrupted("neither root slot of '\(path)' is valid")
            }
            root = next
        }
        throw AtollError(.ioError, "could not pin a version of '\(path)': it keeps changing while being opened read-only")
    }

    /// The oldest version at most `newest` that a reader without a lock file has pinned (see
    /// "Reading without a lock file"), nil when none.
    func oldestUncoordinatedPin(atMost newest: UInt64) throws -> UInt64? {
        guard !file.isAnonymous else { return nil }
        var lowest: Int64 = 0
        let rc = atoll_ofd_lowest_locked(file.fd, Self.uncoordinatedPinOffset + 1, Int64(newest), &lowest)
        guard rc >= 0 else { throw AtollError.posix("looking for readers of", path: displayName, errno: -rc) }
        return rc == 1 ? UInt64(lowest - Self.uncoordinatedPinOffset) : nil
    }

    /// The header (after checking the key against it, see `checkEncryption`), the newest root
    /// record, and for an encrypted file the cipher of its pages.
    private static func readHeaderAndRoot(file: MappedFile, path: String, key: EncryptionKey?, excluding excluded: RootRecord.Identity?) throws -> (FileHeader, RootRecord, PageCipher?) {
        guard file.fileSizeBytes >= FileHeader.byteCount else {
            // Not one of Atoll's (needsInitialization): too short for a header.
            throw AtollError(.notAnAtollFile, "'\(path)' is not an Atoll database: it is only \(file.fileSizeBytes) bytes long")
        }
        let base = try file.mapping(covering: FileHeader.byteCount)
        let header = try FileHeader.read(from: base, fileBytes: file.fileSizeBytes, path: path)
        try checkEncryption(header: header, key: key, name: path)
        let cipher = key.map { PageCipher(key: $0, fileId: header.fileId) }
        guard let root = RootRecord.newest(in: base, cipher: cipher, excluding: excluded) else {
            throw AtollError.corrupted("neither root slot of '\(path)' is valid")
        }
        return (header, root, cipher)
    }

    /// Refuses a key that does not open the file: no key for an encrypted file (`.fileEncrypted`),
    /// a wrong key, or a key for an unencrypted file (`.invalidKey`).
    private static func checkEncryption(header: FileHeader, key: EncryptionKey?, name: String) throws {
        guard header.isEncrypted else {
            if key != nil {
                throw AtollError(.invalidKey, "'\(name)' is not encrypted, but an encryption key was given; open it without a key, or write an encrypted copy with writeCopy(to:encryptionKey:)")
            }
            return
        }
        guard let key else {
            throw AtollError(.fileEncrypted, "'\(name)' is encrypted; open it with its 64-byte encryption key")
        }
        guard header.encryptionScheme == EncryptedLayout.scheme else {
            throw AtollError(.fileFormatTooNew, "'\(name)' uses encryption scheme \(header.encryptionScheme); this version of Atoll reads scheme \(EncryptedLayout.scheme). Upgrade Atoll to open it.")
        }
        let expected = EncryptedLayout.keyCheck(key, fileId: header.fileId)
        var difference: UInt8 = 0
        for (a, b) in zip(expected, header.keyCheck) { difference |= a ^ b }
        guard difference == 0, expected.count == header.keyCheck.count else {
            throw AtollError(.invalidKey, "the encryption key does not open '\(name)': the file was encrypted with another key")
        }
    }

    /// Whether the file is empty or its creation never finished: the header page, written last
    /// (see `initializeNewFile`), is still all zeros.
    private static func needsInitialization(_ file: MappedFile) throws -> Bool {
        let size = file.fileSizeBytes
        guard size >= FileFormat.pageSize else {
            // A creation grows the file to its first data page before it writes anything, so a
            // shorter file holding any non-zero byte is another program's (reading its header
            // refuses it, `.notAnAtollFile`); it must not be overwritten.
            guard size > 0 else { return true }
            return isZero(UnsafeRawPointer(try file.mapping(covering: size)), count: size)
        }
        let base = UnsafeRawPointer(try file.mapping(covering: FileFormat.pageSize))
        return isZero(base, count: FileFormat.pageSize)
    }

    private static func isZero(_ p: UnsafeRawPointer, count: Int) -> Bool {
        var i = 0
        while i + 8 <= count {
            if p.loadUnaligned(fromByteOffset: i, as: UInt64.self) != 0 { return false }
            i += 8
        }
        while i < count {
            if p.load(fromByteOffset: i, as: UInt8.self) != 0 { return false }
            i += 1
        }
        return true
    }

    /// Writes the first (empty) version of a new file and then its header, under the writer lock
    /// so two processes creating the same file at once cannot both initialize it.
    ///
    /// The header goes last, after the root record is durable: a file with a valid header always
    /// has a valid root record, and a creation interrupted by a crash or power failure leaves a
    /// header page of zeros (and no data), which the next writable open initializes again.
    private static func initializeNewFile(file: MappedFile, lock: LockFile, durability: DatabaseConfiguration.Durability,
                                          initialVersion: UInt64 = 1, encryptionKey: EncryptionKey?) throws {
        try lock.lockWriter()
        defer { lock.unlockWriter() }
        let size = try file.refreshSize()
        if size > 0 {
            let existing = UnsafeRawPointer(try file.mapping(covering: size))
            // Another process may have created it since this one looked.
            if size >= FileFormat.pageSize, !isZero(existing, count: FileFormat.pageSize) { return }
            // An interrupted creation wrote at most a root record of the empty first version;
            // anything else means a damaged file, which must not be overwritten.
            let slots = Int(FileFormat.firstDataPage) * FileFormat.pageSize
            var holdsData = size > slots && !isZero(existing + slots, count: size - slots)
            for slot in FileFormat.firstSlotPage..<FileFormat.firstDataPage where Int(slot + 1) * FileFormat.pageSize <= size {
                let p = existing + Int(slot) * FileFormat.pageSize
                if let r = RootRecord.read(from: p), r.catalogRoot != 0 || r.freeListRoot != 0 || r.historyRoot != 0 { holdsData = true }
            }
            guard !holdsData else {
                throw AtollError.corrupted("'\(file.path)' has no file header but holds data; it is damaged (restore it from a backup)")
            }
        }
        let base = try file.grow(toAtLeast: Int(FileFormat.firstDataPage) * FileFormat.pageSize)
        var header = FileHeader()
        header.creationNanos = UInt64(Clock.realtimeNanoseconds())
        var cipher: PageCipher?
        if let encryptionKey {
            header.flags |= EncryptedLayout.headerFlag
            header.encryptionScheme = EncryptedLayout.scheme
            header.keyCheck = EncryptedLayout.keyCheck(encryptionKey, fileId: header.fileId)
            cipher = PageCipher(key: encryptionKey, fileId: header.fileId)
        }
        var root = RootRecord()
        root.version = initialVersion
        root.commitTimeNanos = header.creationNanos
        for slotPage in FileFormat.firstSlotPage..<FileFormat.firstDataPage {
            (base + Int(slotPage) * FileFormat.pageSize).initializeMemory(as: UInt8.self, repeating: 0, count: FileFormat.pageSize)
        }
        root.write(to: base + Int(FileFormat.slotPage(forVersion: initialVersion)) * FileFormat.pageSize, cipher: cipher)
        if durability == .full { try file.sync() }
        header.write(to: base)
        if durability == .full { try file.sync() }
    }

    /// Creates a new, empty data file whose first version is `initialVersion` (copies continue
    /// the numbering of their source).
    static func createFile(path: String, initialVersion: UInt64, encryptionKey: EncryptionKey?) throws {
        guard access(path, F_OK) != 0 else { throw AtollError(.fileExists, "'\(path)' already exists") }
        let lock = try LockFile(path: DatabaseConfiguration.lockPath(for: path))
        let file = try MappedFile(path: path, writable: true, create: true)
        try initializeNewFile(file: file, lock: lock, durability: .full, initialVersion: initialVersion, encryptionKey: encryptionKey)
    }

    /// The newest committed version.
    public var latestVersion: UInt64 { lock.publishedVersion }

    deinit {
        do {
            try sealNewestCommit()
        } catch {
            // The seal only adds proof that the newest commit returned (Database+Roots.swift,
            // "Sealing"); without it the file is exactly as the commit left it.
        }
    }

    /// Reads the newest valid root record from the file (used by writers, which hold the lock),
    /// leaving out a record found incomplete at open (Database+Roots.swift).
    func newestRoot() throws -> RootRecord {
        let base = try file.mapping(covering: Int(FileFormat.firstDataPage) * FileFormat.pageSize)
        guard let root = RootRecord.newest(in: base, cipher: cipher, excluding: lock.rejectedRecord) else { throw AtollError.corrupted("neither root slot of '\(displayName)' is valid") }
        return root
    }

    func schema(for root: RootRecord, space: PageSpace) throws -> SchemaSnapshot {
        if let cached = schemaCache.withLock({ $0 }), cached.generation == root.schemaGeneration { return cached }
        let loaded = try SchemaSnapshot.load(catalogRoot: root.catalogRoot, generation: root.schemaGeneration, space: space)
        schemaCache.withLock { cache in
            if (cache?.generation ?? 0) <= loaded.generation { cache = loaded }
        }
        return loaded
    }

    // MARK: transactions

    /// Starts a read transaction on the newest version. Never blocks on writers.
    public func beginRead() throws -> ReadTransaction {
        // Transactions of this process on the newest version share its slot (ReaderPins.swift).
        if uncoordinatedRoot == nil, let lease = readerPins.share(lock.publishedVersion) {
            return try ReadTransaction(database: self, lease: lease)
        }
        let slot = try lock.claimSlot(heldByThisProcess: readerPins.slotsHeld)
        let lease: ReaderLease
        do {
            var attempt = 0
            while true {
                attempt += 1
                if attempt > 10_000 {
                    throw AtollError(.ioError, "could not pin a version of '\(displayName)': the published version \(lock.publishedVersion) is not in the file")
                }
                let v = lock.pinPublished(slot: slot)
                let base = try file.mapping(covering: Int(FileFormat.firstDataPage) * FileFormat.pageSize)
                // Without a lock file the one pinned version is read, whatever the slots hold now.
                guard let root = uncoordinatedRoot ?? RootRecord.read(version: v, in: base, cipher: cipher, excluding: lock.rejectedRecord) else {
                    // A newer commit reused the slot: pin the newest version instead.
                    continue
                }
                try checkActiveVersions(adding: v)
                let space = try store.space(pageCount: root.pageCount)
                // From here the lease owns the slot (or released it, when another thread of
                // this process pinned the same version meanwhile).
                lease = readerPins.add(slot: slot, root: root, space: space)
                break
            }
        } catch {
            lock.releaseSlot(slot)
            throw error
        }
        return try ReadTransaction(database: self, lease: lease)
    }

    /// Reader slots this process holds on the file through this database, one per pinned
    /// version, and the same count as the lock file's reader table records for this process
    /// (for tests and diagnostics).
    package var readerSlots: (leases: Int, inTable: Int) {
        (readerPins.slotsHeld, lock.slotsHeld(by: lock.pid))
    }

    private func checkActiveVersions(adding v: UInt64) throws {
        guard let max = configuration.maximumActiveVersions else { return }
        var pinned = lock.pinnedVersions().distinct
        pinned.insert(v)
        pinned.insert(latestVersion)
        if pinned.count > max {
            throw AtollError(.tooManyActiveVersions,
                "\(pinned.count) versions of '\(displayName)' would be live, more than the configured maximum of \(max); release old Realm instances, frozen objects or read transactions (oldest pinned version: \(pinned.min() ?? 0))")
        }
    }

    /// Starts the write transaction, waiting for other writers (threads and processes).
    /// Checks a write transaction before it commits: it receives the names of the tables whose
    /// rows the transaction changed and throws to refuse the commit (nothing is written).
    public typealias WriteGuard = @Sendable (_ changedTables: [String]) throws -> Void

    /// Installs (or, with nil, removes) the check every later write transaction of this process
    /// on this database passes before it commits, unless it sets `bypassesWriteGuard`. Sync uses
    /// it to refuse, before commit, changes the relay would refuse (a realm read-only for this
    /// node). Other processes writing the file are not affected.
    public func setWriteGuard(_ guard: WriteGuard?) {
        writeGuard.withLock { $0 = `guard` }
    }

    var currentWriteGuard: WriteGuard? { writeGuard.withLock { $0 } }

    public func beginWrite() throws -> WriteTransaction {
        guard !configuration.readOnly else { throw AtollError(.readOnly, "'\(displayName)' is open read-only") }
        let me = pthread_self()
        if writerThread.withLock({ $0.map { pthread_equal($0, me) != 0 } ?? false }) {
            throw AtollError(.invalidTransaction, "this thread already has a write transaction open on '\(displayName)'; write transactions cannot nest (commit or cancel the first one)")
        }
        writerGate.wait()
        writerThread.withLock { $0 = me }
        do {
            try lock.lockWriter()
        } catch {
            writerThread.withLock { $0 = nil }
            writerGate.signal()
            throw error
        }
        return try openWriteTransaction()
    }

    /// Starts the write transaction for an owner that is not a thread: an actor or a task, which
    /// may run on another thread after each suspension, so the transaction may be committed on
    /// a thread other than the one that started it. There is no per-thread nesting check (the
    /// caller keeps at most one write per realm). `waiting`: false returns nil at once when
    /// another thread or process holds the writer lock, instead of blocking; true blocks, so
    /// call it only from a thread that may block (never from Swift's cooperative pool).
    public func beginWriteForHandoff(waiting: Bool) throws -> WriteTransaction? {
        guard !configuration.readOnly else { throw AtollError(.readOnly, "'\(displayName)' is open read-only") }
        if waiting {
            writerGate.wait()
        } else if writerGate.wait(timeout: .now()) == .timedOut {
            return nil
        }
        do {
            if waiting {
                try lock.lockWriter()
            } else if try !lock.tryLockWriter() {
                writerGate.signal()
                return nil
            }
        } catch {
            writerGate.signal()
            throw error
        }
        return try openWriteTransaction()
    }

    /// The write transaction on the newest version, once this process holds `writerGate` and
    /// the writer lock (released again if it cannot start).
    private func openWriteTransaction() throws -> WriteTransaction {
        do {
            lock.setWriterPid(lock.pid)
            try file.refreshSize()
            let root = try newestRoot()
            if configuration.durability == .full, lock.durableVersion != root.version {
                // The newest version may not be on stable storage (its committer was killed
                // before its sync returned, or committed without syncing, or this is the first
                // writer since the lock file was initialized): this transaction may reuse pages
                // that the version before it reaches, so the newest must be durable first.
                try file.sync()
                lock.setDurable(version: root.version)
            }
            let pinned = lock.pinnedVersions()
            if let max = configuration.maximumActiveVersions {
                var live = pinned.distinct
                live.insert(root.version)
                live.insert(root.version + 1)
                if live.count > max {
                    throw AtollError(.tooManyActiveVersions,
                        "committing would make \(live.count) versions of '\(displayName)' live, more than the configured maximum of \(max); release old Realm instances, frozen objects or read transactions (oldest pinned version: \(pinned.oldest ?? root.version))")
                }
            }
            var reusable = min(pinned.oldest ?? root.version, root.version)
            if let uncoordinated = try oldestUncoordinatedPin(atMost: root.version) { reusable = min(reusable, uncoordinated) }
            let allocator = try PageAllocator(store: store, root: root, reusableVersionMax: reusable)
            return try WriteTransaction(database: self, root: root, allocator: allocator, pinned: pinned)
        } catch {
            releaseWriter()
            throw error
        }
    }

    func releaseWriter() {
        lock.setWriterPid(0)
        lock.unlockWriter()
        writerThread.withLock { $0 = nil }
        writerGate.signal()
    }

    // MARK: change notification

    /// The commit counter that `waitForCommit` sleeps on.
    public var commitSequence: UInt32 { lock.commitSequence }

    /// Blocks until another commit happens (in any process) after `sequence` was read, or the
    /// timeout passes. Returns the current sequence.
    @discardableResult
    public func waitForCommit(after sequence: UInt32, timeoutMilliseconds: Int) -> UInt32 {
        lock.waitForCommit(after: sequence, timeoutNanoseconds: Int64(timeoutMilliseconds) * 1_000_000)
    }
}

extension Database {
    /// Whether another process has this database open (best effort).
    public static func isOpenElsewhere(_ db: Database) -> Bool { !db.lock.isSoleUser() }
}
