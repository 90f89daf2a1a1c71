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
// A read-only open without a lock file (read-only media) checks the version it pins, the same
// way, in its private lock state.

extension Database {
    /// The newest root record whose commit is complete, and the identity of a newer record it
    /// left out because its commit is not. Throws `.fileCorrupted` when no slot holds a complete
    /// commit.
    static func newestCompleteRoot(file: MappedFile, store: PageStore, cipher: PageCipher?, path: String) throws -> (RootRecord, RootRecord.Identity?) {
        let size = try file.refreshSize()
        let base = try file.mapping(covering: size)
        var rejected: RootRecord.Identity?
        var problems: [String] = []
        while true {
            guard let page = RootRecord.newestSlotPage(in: base, cipher: cipher, excluding: rejected),
                  let record = RootRecord.read(from: base + Int(page) * FileFormat.pageSize, cipher: cipher)
            else {
                throw AtollError.corrupted(problems.isEmpty ? "neither root slot of '\(path)' is valid"
                    : "neither root slot of '\(path)' holds a complete commit (\(problems.joined(separator: "; "))); restore it from a backup")
            }
            let slot = UnsafeRawPointer(base + Int(page) * FileFormat.pageSize)
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
                let (_, rejected) = try newestCompleteRoot(file: file, store: store, cipher: cipher, path: path)
                lock.setRootsChecked(rejecting: rejected)
            }
        }
        let base = try file.mapping(covering: Int(FileFormat.firstDataPage) * FileFormat.pageSize)
        guard let root = RootRecord.newest(in: base, cipher: cipher, excluding: lock.rejectedRecord) else {
            throw AtollError.corrupted("neither root slot of '\(path)' is valid")
        }
        return root
    }
}
