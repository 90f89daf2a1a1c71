import Testing
@testable import AtollStorage

/// How a reader picks the newest root record while a writer may be writing the slots
/// (RootRecord.newestSlot).
@Suite struct RootSlotScanTests {
    /// Two slots and a writer whose writes overlap the reader's reads: each read of the slot
    /// being written finds it torn, and every read lets the write in flight finish.
    final class LockstepWriter {
        var slots: [PageNumber: RootRecord]
        var writes: [(page: PageNumber, record: RootRecord)]
        var reads = 0

        init(slots: [PageNumber: RootRecord], writes: [(page: PageNumber, record: RootRecord)]) {
            self.slots = slots
            self.writes = writes
        }

        func read(_ page: PageNumber) -> RootRecord? {
            reads += 1
            guard let write = writes.first else { return slots[page] }
            writes.removeFirst()
            slots[write.page] = write.record
            return write.page == page ? nil : slots[page]
        }
    }

    static func record(version: UInt64, epoch: UInt64) -> RootRecord {
        var r = RootRecord()
        r.version = version
        r.ivEpoch = epoch
        r.pageCount = FileFormat.firstDataPage
        return r
    }

    static let first = FileFormat.firstSlotPage, second = FileFormat.firstSlotPage + 1

    /// An IV epoch reservation writes the newest record with the next epoch into the inactive
    /// slot and then into the active one. An odd version lives in the second slot, so the
    /// writer goes first slot, second slot: the order a reader scans in. Reading at the same
    /// pace, the reader finds both torn once (a new file's version 1 did, in CI) and must look
    /// again rather than call the file damaged.
    @Test func aReaderOverlappingAnEpochReservationFindsTheReservedRecord() throws {
        let before = [Self.first: Self.record(version: 8, epoch: 3), Self.second: Self.record(version: 9, epoch: 3)]
        let reserved = Self.record(version: 9, epoch: 4)
        let writes = [(page: Self.first, record: reserved), (page: Self.second, record: reserved)]
        // The bug: one scan in that order sees nothing valid.
        let once = LockstepWriter(slots: before, writes: writes)
        #expect(once.read(Self.first) == nil && once.read(Self.second) == nil)

        let writer = LockstepWriter(slots: before, writes: writes)
        let found = try #require(RootRecord.newestSlot(reading: writer.read))
        #expect(found.record == reserved)
        #expect(found.page == FileFormat.slotPage(forVersion: 9))
        #expect(writer.reads == 4)
    }

    /// A writer that keeps tearing whatever the reader reads next (never in real life: each
    /// further miss needs another slot write to complete between two reads) ends the scans,
    /// and the reader reports no valid slot rather than loop.
    @Test func scansAreBounded() {
        var reads = 0
        #expect(RootRecord.newestSlot { _ in reads += 1; return nil } == nil)
        #expect(reads == 2 * RootRecord.slotScansMax)
    }

    /// The choice itself: the higher version; at one version the higher IV epoch; at one
    /// version and epoch (a seal) the slot of the version's parity.
    @Test func theNewestRecordWins() throws {
        func pick(_ a: RootRecord?, _ b: RootRecord?) -> PageNumber? {
            RootRecord.newestSlot { $0 == Self.first ? a : b }?.page
        }
        #expect(pick(Self.record(version: 9, epoch: 1), Self.record(version: 8, epoch: 5)) == Self.first)
        #expect(pick(Self.record(version: 8, epoch: 1), Self.record(version: 9, epoch: 1)) == Self.second)
        #expect(pick(Self.record(version: 8, epoch: 2), Self.record(version: 8, epoch: 1)) == Self.first)
        #expect(pick(Self.record(version: 8, epoch: 1), Self.record(version: 8, epoch: 2)) == Self.second)
        #expect(pick(Self.record(version: 8, epoch: 1), Self.record(version: 8, epoch: 1)) == FileFormat.slotPage(forVersion: 8))
        #expect(pick(Self.record(version: 9, epoch: 1), Self.record(version: 9, epoch: 1)) == FileFormat.slotPage(forVersion: 9))
        #expect(pick(nil, Self.record(version: 3, epoch: 0)) == Self.second)
        #expect(pick(Self.record(version: 3, epoch: 0), nil) == Self.first)
    }
}
