// IV counters for an encrypted file's commits (PageCipher.swift explains why they are unique).
//
// A process encrypts pages only with counters of an epoch it has reserved durably: before its
// first sealed page it takes the newest root record, increments the IV epoch it carries, and
// writes that record (same version, same roots) into the inactive slot and then into the
// active one, syncing each. Version V is then in both slots, so a torn write of either leaves
// the other (a crash between the two leaves V in the inactive slot only: commits write the
// slot not holding the newest record, and readers look for a version in both slots); and
// every later root record carries the epoch forward (a commit writes the
// maximum of the epoch it read and its own), so no crash can bring back a smaller one. Pages
// written under the epoch, even by a commit that never became durable, are therefore never
// matched by a counter of a later epoch.

extension WriteTransaction {
    /// `count` consecutive IV counters no page of this file has ever been encrypted with.
    func reserveCounters(_ count: Int, cache: DecryptedPageCache) throws -> UInt64 {
        if let first = cache.reserveCounters(count) { return first }
        try reserveEpoch(cache)
        guard let first = cache.reserveCounters(count) else {
            throw AtollError(.limitExceeded, "a commit of \(count) pages exceeds the IV counters of one epoch (2^32 - 1 pages)")
        }
        return first
    }

    private func reserveEpoch(_ cache: DecryptedPageCache) throws {
        guard let allocator else { throw AtollError(.invalidTransaction, "reserving IV counters needs a write transaction") }
        let lock = database.lock
        let rejected = lock.rejectedRecord
        let fileBase = allocator.space.fileBase
        guard let slot = RootRecord.newestSlot(in: fileBase, cipher: database.cipher, excluding: rejected) else {
            throw AtollError.corrupted("neither root slot of '\(database.displayName)' is valid")
        }
        let active = slot.page
        var record = slot.record
        guard record.ivEpoch + 1 < 1 << 32 else {
            throw AtollError(.limitExceeded, "'\(database.displayName)' has used all 2^32 IV epochs; write a copy with writeCopy(to:encryptionKey:) to continue")
        }
        record.ivEpoch += 1
        // The record keeps its commit page list (format 3): copied along, it still matches.
        let list = CommitPageList.bytes(of: record, slot: fileBase + Int(active) * FileFormat.pageSize)
        let durable = database.configuration.durability == .full
        let inactive = active == FileFormat.firstSlotPage ? active + 1 : FileFormat.firstSlotPage
        for slotPage in [inactive, active] {
            let offset = Int(slotPage) * FileFormat.pageSize
            list.withUnsafeBytes { CommitPageList.writeSlot(record, list: $0, to: fileBase + offset, cipher: database.cipher) }
            if slotPage == inactive, rejected != nil { lock.setRejectedRecord(nil) }
            if durable { try database.file.sync(offset: offset, length: FileFormat.pageSize) }
        }
        cache.begin(epoch: record.ivEpoch)
    }
}
