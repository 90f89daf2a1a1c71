// Which version an open starts from, when the newest commit may be incomplete (format 3).
//
// A one-sync commit's root record may reach the disk before its pages (CommitPageList.swift),
// so a record that passes its own checksum is checked against its commit page list before
// anything reads through it. Only a power failure or a kernel crash can leave such a record:
// a process that crashes leaves its complete commit in the page cache, because it writes the
// record after every page. And no process can have had the database open across a power
// failure. So the check is needed once after every time no process had the database open,
// which is exactly when the lock file is initialized afresh (LockFile.swift: the first process
// to attach while no other has the database open resets it).
//
// The first opener therefore checks, under the writer lock, so that no commit runs meanwhile
// (a later commit may reuse the pages of a record being checked once a newer one exists), and
// records the outcome in the lock file: "roots checked", and the identity (version and CRC
// field) of a record found incomplete. Every reader and writer leaves that record out
// (RootRecord.newest(excluding:)) and so sees the previous version, whose slot and pages the
// incomplete commit never touched; the next commit writes the slot not holding the newest valid
// record, i.e. overwrites the incomplete one, and clears the identity. Later openers find
// "roots checked" and read the newest record as it is: any record written since was written by
// a live process after its pages. Cost: one commit's pages at most (CommitPageList.pagesMax),
// once per lock-file lifetime.
//
// Damage is not an interrupted commit. A page of the newest commit that fails its check looks
// the same whether a power failure kept it from the disk or something damaged it since. Leaving
// a damaged commit out would answer with the previous version as if it were the data (for a
// file written in one commit: no objects at all). So a commit that returned to its writer
// leaves proof: after its sync returned, the writer records the record's identity in the lock
// file, which keeps it when a later session initializes the lock file afresh (LockFile.swift).
// The record it names had every page on stable storage, so the check accepts it whatever its
// pages hold now, and a damaged page is reported by the page checks when it is read, as in
// formats 1 and 2. Without the proof (the lock file deleted, or its page lost with the power)
// open cannot tell, and leaves the record out as a commit that may not have finished.
//
// Sealing. The lock file's proof stays with the lock file: a copy of the data file alone (cp,
// a backup tool, a file sent elsewhere) does not carry it. So an instance that made a one-sync
// commit seals the newest commit when it closes, if that commit is the one whose return the lock
// file records and no other writer holds the lock: it writes a copy of the commit's root record
// without its page list into the other slot and syncs that page. A record without a list
// asserts that its commit's pages were synced before it was written (as a two-sync commit's
// does), which is now true. Both slots then hold the version; the check takes the listed record
// as complete when the other slot holds its sealed copy. The seal costs one page write and one
// sync per instance that wrote, at close; the next commit overwrites it (it is the slot not
// holding the newest record by parity). A failed or torn seal leaves the file as it was.
//
// A read-only open without a lock file (read-only media) checks the version it pins, the same
// way, in its private lock state.

extension Database {
    /// The newest root record whose commit is complete, and the identity of a newer record it
    /// left out because its commit is not. Throws `.fileCorrupted` when no slot holds a complete
    /// commit.
    /// `returned`: the record of a commit known to have returned after its sync, which is
    /// accepted as complete (see "Damage is not an interrupted commit").
    static func newestCompleteRoot(file: MappedFile, store: PageStore, cipher: PageCipher?, path: String,
                                   returned: RootRecord.Identity?) throws -> (RootRecord, RootRecord.Identity?) {
        let size = try file.refreshSize()
        let base = try file.mapping(covering: size)
        var rejected: RootRecord.Identity?
        var problems: [String] = []
        while true {
            guard let found = RootRecord.newestSlot(in: base, cipher: cipher, excluding: rejected) else {
                throw AtollError.corrupted(problems.isEmpty ? "neither root slot of '\(path)' is valid"
                    : "neither root slot of '\(path)' holds a complete commit (\(problems.joined(separator: "; "))); restore it from a backup")
            }
            let page = found.page, record = found.record
            let slot = UnsafeRawPointer(base + Int(page) * FileFormat.pageSize)
            if let returned, RootRecord.identity(at: slot) == returned { return (record, rejected) }
            if isSealed(record, slotPage: page, base: base, cipher: cipher) { return (record, rejected) }
            guard let problem = try CommitPageList.problem(with: record, slot: slot, fileBase: base, fileBytes: size, store: store) else {
                return (record, rejected)
            }
            problems.append(problem)
            // Two slots: after leaving out one record, only the other remains.
            guard rejected == nil else {
                throw AtollError.corrupted("neither root slot of '\(path)' holds a complete commit (\(problems.joined(separator: "; "))); restore it from a backup")
            }
            rejected = RootRecord.identity(at: slot)
        }
    }

    /// Checks the newest commit if no process has done so since the lock file was initialized
    /// (see above), and returns the newest root record readers and writers may use.
    static func checkedNewestRoot(file: MappedFile, store: PageStore, cipher: PageCipher?, lock: LockFile, path: String) throws -> RootRecord {
        if !lock.rootsChecked {
            try lock.lockWriter()
            defer { lock.unlockWriter() }
            if !lock.rootsChecked {
                let (_, rejected) = try newestCompleteRoot(file: file, store: store, cipher: cipher, path: path, returned: lock.returnedRecord)
                lock.setRootsChecked(rejecting: rejected)
            }
        }
        return try newestRootWaitingForWriter(file: file, cipher: cipher, lock: lock, path: path)
    }

    /// The newest valid root record, for a reader that does not hold the writer lock. A writer
    /// may be rewriting both slots (an IV epoch reservation, RootRecord.newestSlot); when no scan
    /// finds a valid one, this looks once more after the writer lock was free (waiting at most
    /// 2 s), so only a file whose slots are damaged is reported as such.
    static func newestRootWaitingForWriter(file: MappedFile, cipher: PageCipher?, lock: LockFile, path: String) throws -> RootRecord {
        let base = try file.mapping(covering: Int(FileFormat.firstDataPage) * FileFormat.pageSize)
        if let root = RootRecord.newest(in: base, cipher: cipher, excluding: lock.rejectedRecord) { return root }
        _ = lock.waitForWriterToFinish(timeoutMilliseconds: 2_000)
        guard let root = RootRecord.newest(in: base, cipher: cipher, excluding: lock.rejectedRecord) else {
            throw AtollError.corrupted("neither root slot of '\(path)' is valid")
        }
        return root
    }

    /// Whether the slot other than `slotPage` holds the sealed copy of `record`: the same record
    /// without a page list.
    static func isSealed(_ record: RootRecord, slotPage: PageNumber, base: UnsafeRawPointer, cipher: PageCipher?) -> Bool {
        guard record.commitListCount > 0 else { return false }
        let other = slotPage == FileFormat.firstSlotPage ? FileFormat.firstSlotPage + 1 : FileFormat.firstSlotPage
        guard let copy = RootRecord.read(from: base + Int(other) * FileFormat.pageSize, cipher: cipher) else { return false }
        var sealed = record
        sealed.commitListCount = 0
        sealed.commitListChecksum = 0
        return copy == sealed
    }

    func noteOneSyncCommitReturned() { sealOnClose.store(true, ordering: .relaxed) }

    /// Seals the newest commit (see "Sealing") if this instance made a one-sync commit and the
    /// newest is the commit whose return the lock file records. Never waits for the writer lock.
    func sealNewestCommit() throws {
        guard sealOnClose.load(ordering: .relaxed), try lock.tryLockWriter() else { return }
        defer { lock.unlockWriter() }
        guard lock.rejectedRecord == nil, let returned = lock.returnedRecord else { return }
        let base = try file.mapping(covering: Int(FileFormat.firstDataPage) * FileFormat.pageSize)
        guard let found = RootRecord.newestSlot(in: base, cipher: cipher),
              RootRecord.identity(at: base + Int(found.page) * FileFormat.pageSize) == returned,
              found.record.commitListCount > 0
        else { return }
        let page = found.page
        var record = found.record
        record.commitListCount = 0
        record.commitListChecksum = 0
        let other = page == FileFormat.firstSlotPage ? FileFormat.firstSlotPage + 1 : FileFormat.firstSlotPage
        let offset = Int(other) * FileFormat.pageSize
        CommitPageList.writeSlot(record, list: UnsafeRawBufferPointer(start: nil, count: 0), to: base + offset, cipher: cipher)
        try file.sync(offset: offset, length: FileFormat.pageSize)
    }
}
