import AtollStorage

// Staging: the parts of a remote transaction, kept until its last part arrives.
//
// A local transaction larger than `SyncLimits.changesetSplitBytes` travels as consecutive
// changesets of its origin, all but the last flagged `continuesFlag`. They may arrive in
// different download batches, with a reconnect or a crash in between, interleaved with other
// origins' changesets. A receiver applies a transaction only whole, in one commit, so that no
// reader (a live `Results`, another process) ever sees part of it:
//
// - A part that continues is written to `sync.staged` (in the file, not kept in memory), in the
//   commit of the download batch that brought it, together with the download cursor. The
//   version vector does not move: it claims only applied changesets. The relay's log position
//   is acknowledged after that commit, which is safe because the part is durable here: after a
//   crash the node resumes after it and finds it in its file.
// - The last part applies the staged ones in order, then itself, in one commit, deletes them
//   from `sync.staged` and moves the version vector past the whole transaction. Records are
//   written back after each part (`flushRecords`), so memory holds one part's records, not the
//   transaction's.
// - A part that is already staged (a resend; a download from a new relay, which starts from the
//   version vector) is a duplicate and skipped; a part after a missing one is a gap
//   (`.protocolViolation`, as for any changeset).
// - The body bytes of one origin's staged parts plus the arriving part may not exceed
//   `SyncLimits.transactionBytesMax` (`.protocolViolation`): staging is bounded per origin.
// - Parts at or below the origin's applied seq are obsolete (a relay snapshot moved the version
//   vector past the whole transaction, which the relay folds only whole): they are deleted.
// - A transaction whose origin will never finish it (a node the relay forgot, which resets to a
//   new id and makes the whole transaction again) ends in an abandonment (`abandonsFlag`,
//   appended by the relay): its staged parts are deleted unapplied, and the version vector moves
//   past them. The relay does not fold them either.
//
// Other origins' changesets apply as they come. None can depend on an unfinished transaction:
// no node applies part of one, so no user can have seen it, and the relay's log (arrival
// order) brings a transaction's last part before anything made after it was applied.
//
// Snapshot chunks of the relay's compacted history are staged the same way, under their index,
// and applied together with the last chunk, so a node joining from a snapshot sees it whole.

extension SyncWriter {
    /// The staged parts of one origin: seqs `first...last` (none when `last` is 0), and their
    /// body bytes.
    struct StagedRun {
        var first: UInt64 = 0
        var last: UInt64 = 0
        var bodyBytes = 0

        var isEmpty: Bool { last == 0 }
    }

    /// A local commit too large to ship as one transaction (`SyncLimits.transactionBytesMax`).
    struct OversizeCommit: Equatable {
        var version: UInt64
        var bodyBytes: Int
        var transactions: Int
    }

    /// The parts of `origin`'s transaction in progress (obsolete ones are deleted on the way).
    func stagedRun(of origin: NodeID) throws -> StagedRun {
        if let run = stagedRuns[origin] { return run }
        let have = state.appliedSeq(of: origin)
        var run = StagedRun()
        var obsolete: [[UInt8]] = []
        let prefix = SyncTrees.stagedPartPrefix(origin)
        try txn.forEachInternalEntry(SyncTrees.staged, from: prefix, prefix: prefix) { k, v in
            guard k.count == prefix.count + 8 else { throw AtollError.corrupted("sync staged key of \(k.count) bytes") }
            let seq = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: prefix.count, as: UInt64.self))
            if seq <= have {
                obsolete.append(Array(k))
                return true
            }
            let expected = (run.isEmpty ? have : run.last) + 1
            guard seq == expected else {
                throw AtollError.corrupted("the staged parts of node \(origin)'s transaction skip from \(expected - 1) to \(seq)")
            }
            var r = ByteReader(v, context: "sync staged part")
            _ = try r.varint()
            _ = try r.u8()
            if run.isEmpty { run.first = seq }
            run.last = seq
            run.bodyBytes += r.remaining
            return true
        }
        for k in obsolete { try txn.deleteInternal(SyncTrees.staged, key: k) }
        stagedRuns[origin] = run
        return run
    }

    /// The next seq of `origin` this node takes: after what it applied and what it staged.
    func nextExpectedSeq(of origin: NodeID) throws -> UInt64 {
        let run = try stagedRun(of: origin)
        return max(state.appliedSeq(of: origin), run.last) + 1
    }

    /// Checks that `cs` keeps its transaction within `transactionBytesMax`.
    private func checkTransactionSize(_ cs: Changeset, _ run: StagedRun) throws {
        guard run.bodyBytes + cs.body.count <= transactionBytesMax else {
            throw AtollError(.protocolViolation,
                "node \(cs.origin)'s transaction reaches \(run.bodyBytes + cs.body.count) bytes with changeset \(cs.seq), more than the \(transactionBytesMax) bytes one transaction may hold (SyncLimits.transactionBytesMax)")
        }
    }

    /// Keeps `cs`, a part that continues its transaction and is the next of its origin, in
    /// `sync.staged` until the transaction's last part arrives.
    func stage(_ cs: Changeset) throws {
        var run = try stagedRun(of: cs.origin)
        try checkTransactionSize(cs, run)
        var w = ByteWriter(capacity: cs.body.count + 11)
        w.varint(cs.hlc)
        w.u8(cs.flags)
        w.append(cs.body)
        try txn.putInternal(SyncTrees.staged, key: SyncTrees.stagedPartKey(cs.origin, cs.seq), value: w.bytes)
        if run.isEmpty { run.first = cs.seq }
        run.last = cs.seq
        run.bodyBytes += cs.body.count
        stagedRuns[cs.origin] = run
    }

    /// Applies `cs`, the last part of its transaction (or a whole one), after the staged parts
    /// before it, and moves the version vector past it. Returns the number of changesets applied.
    func applyTransaction(endingWith cs: Changeset) throws -> Int {
        let run = try stagedRun(of: cs.origin)
        try checkTransactionSize(cs, run)
        var applied = 0
        if !run.isEmpty {
            for seq in run.first...run.last {
                let key = SyncTrees.stagedPartKey(cs.origin, seq)
                // One part in memory at a time, copied out of the map before the tree changes.
                let part = try key.withUnsafeBytes { k in
                    try txn.withInternalValue(SyncTrees.staged, key: k) { v -> Changeset in
                        guard let v else { throw AtollError.corrupted("staged part \(seq) of node \(cs.origin) disappeared") }
                        var r = ByteReader(v, context: "sync staged part")
                        let hlc = try r.varint()
                        let flags = try r.u8()
                        return Changeset(origin: cs.origin, seq: seq, hlc: hlc, flags: flags, body: Array(try r.bytes(r.remaining)))
                    }
                }
                try applyRemote(part)
                try txn.deleteInternal(SyncTrees.staged, key: key)
                state.applied[state.nodeIndex(cs.origin)] = seq
                try flushRecords()
                applied += 1
            }
            stagedRuns[cs.origin] = StagedRun()
        }
        try applyRemote(cs)
        state.applied[state.nodeIndex(cs.origin)] = cs.seq
        return applied + 1
    }

    /// Drops the staged parts of `cs.origin`'s transaction, which a relay abandoned (`cs` is its
    /// `Changeset.abandonment`), and moves the version vector past them and `cs`: none of them
    /// is ever applied.
    func abandonTransaction(endingWith cs: Changeset) throws {
        let run = try stagedRun(of: cs.origin)
        if !run.isEmpty {
            for seq in run.first...run.last { try txn.deleteInternal(SyncTrees.staged, key: SyncTrees.stagedPartKey(cs.origin, seq)) }
            stagedRuns[cs.origin] = StagedRun()
        }
        state.applied[state.nodeIndex(cs.origin)] = cs.seq
    }

    /// Takes `cs`, the next changeset of its origin, as a part to stage, an abandonment, or the
    /// end of a transaction to apply. Returns the number of changesets applied (0 for the first
    /// two).
    func take(_ cs: Changeset) throws -> Int {
        if cs.abandons {
            try abandonTransaction(endingWith: cs)
            return 0
        }
        if cs.flags & Changeset.continuesFlag != 0 {
            try stage(cs)
            return 0
        }
        return try applyTransaction(endingWith: cs)
    }

    // MARK: snapshot chunks

    /// Keeps a chunk of a relay snapshot until its last chunk arrives. Chunk 0 starts a new
    /// snapshot: chunks of an earlier, unfinished one are dropped.
    func stageSnapshotChunk(_ body: [UInt8], index: UInt64) throws {
        if index == 0 { try dropStagedSnapshotChunks() }
        try txn.putInternal(SyncTrees.staged, key: SyncTrees.stagedChunkKey(index), value: body)
    }

    /// Applies the staged chunks of a snapshot in order (deleting them); the caller applies the
    /// last chunk after them, in the same transaction.
    func applyStagedSnapshotChunks(relay: NodeID) throws {
        for key in try stagedSnapshotChunkKeys() {
            let body = try txn.internalValue(SyncTrees.staged, key: key) ?? []
            try applySnapshotChunk(body, relay: relay)
            try txn.deleteInternal(SyncTrees.staged, key: key)
            try flushRecords()
        }
    }

    /// Deletes chunks of a snapshot that will not be finished (a new one started, or the log
    /// is being downloaded, which happens only once no snapshot is in progress).
    func dropStagedSnapshotChunks() throws {
        for key in try stagedSnapshotChunkKeys() { try txn.deleteInternal(SyncTrees.staged, key: key) }
    }

    private func stagedSnapshotChunkKeys() throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        let prefix = [SyncTrees.stagedChunkTag]
        try txn.forEachInternalEntry(SyncTrees.staged, from: prefix, prefix: prefix) { k, _ in
            guard k.count == 9 else { throw AtollError.corrupted("sync staged chunk key of \(k.count) bytes") }
            keys.append(Array(k))
            return true
        }
        return keys
    }
}
