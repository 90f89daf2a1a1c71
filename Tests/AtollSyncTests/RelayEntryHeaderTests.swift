import AtollStorage
@testable import AtollSync
import AtollTestSupport
import Testing

/// `RelayStore.entryHeaders`: the log read without bodies (how the relay finds transactions
/// left open) gives the same entries, in the same batches' positions, as `entries`.
@Suite struct RelayEntryHeaderTests {
    @Test(arguments: RelayStoreKind.allCases)
    func headersMatchTheEntriesBatchAfterBatch(_ kind: RelayStoreKind) async throws {
        try await offPool {
            let location = try kind.makeLocation()
            let (node, changesets) = try PostgresRelayStoreTests.changesets(12)
            let writer = try location.open()
            _ = try writer.openRealm("r", fingerprint: PostgresRelayStoreTests.fingerprint, node: node)
            _ = try writer.append("r", changesets, arrival: 7)
            var expected: [RelayEntryHeader] = []
            var after: UInt64 = 0
            while true {
                let batch = try writer.entries("r", after: after, maxBytes: SyncLimits.batchBytesMax) { _ in true }
                guard batch.through > after else { break }
                expected += batch.entries.map(RelayEntryHeader.init)
                after = batch.through
            }
            #expect(expected.map(\.position) == Array(1...12))
            #expect(expected.map(\.seq) == changesets.map(\.seq))
            // The relay that appended (a PostgreSQL store answers from its tail of recent
            // entries) and a second one (which reads the rows).
            let reader = try location.open()
            _ = try reader.openRealm("r", fingerprint: PostgresRelayStoreTests.fingerprint, node: node)
            for store in [writer, reader] {
                var read: [RelayEntryHeader] = []
                var after: UInt64 = 0
                var batches = 0
                while true {
                    let batch = try store.entryHeaders("r", after: after, maxCount: 5)
                    guard batch.through > after else { break }
                    #expect(batch.headers.count <= 5)
                    #expect(batch.headers.last.map { $0.position == batch.through } ?? true)
                    read += batch.headers
                    after = batch.through
                    batches += 1
                }
                #expect(read == expected)
                #expect(batches == 3, "5, 5 and 2 entries")
                #expect(try store.entryHeaders("r", after: 12, maxCount: 5).headers.isEmpty)
                #expect(try store.entryHeaders("r", after: 3, maxCount: 0).headers.isEmpty)
            }
        }
    }
}
