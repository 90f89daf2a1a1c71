import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// The realm's schema history reaches the node (sync protocol 5: `welcome.schemaHistory`), which
/// records it so that `atoll schema FILE --sync` shows what the realm has that the node lacks.
@Suite struct RelaySchemaHistoryTests {
    let relay = NodeID(high: 7, low: 7)
    static let history = SyncSchemaDescription(classes: [
        .init(name: "Item", primaryKey: "id", properties: [
            .init(name: "id", type: 0, isNullable: false, isList: false, intBits: 64, linkTarget: nil),
            .init(name: "color", type: 2, isNullable: true, isList: false, intBits: 0, linkTarget: nil),
        ]),
    ])

    @Test func theWelcomeCarriesTheHistoryFromVersion5On() throws {
        let w = SyncMessage.welcome(.init(relayID: relay, uploadedThrough: 4, head: 9, uploadedThroughDigest: 77, schemaHistory: Self.history))
        #expect(try SyncMessage(frame: w.frame) == w)
        // An older node is not sent it (it would not read the flag).
        let old = SyncMessage.welcome(.init(protocolVersion: 4, relayID: relay, uploadedThrough: 4, head: 9, uploadedThroughDigest: 77, schemaHistory: Self.history))
        guard case .welcome(let decoded) = try SyncMessage(frame: old.frame) else { Issue.record("not a welcome"); return }
        #expect(decoded.schemaHistory == nil && decoded.uploadedThroughDigest == 77)
        // A version-4 welcome with the history bit is malformed, and so is a cut-off history.
        var payload = w.frame.payload
        payload[0] = 4
        #expect(throws: AtollError.self) { try SyncMessage(frame: Frame(kind: SyncMessage.Kind.welcome.rawValue, payload: payload)) }
        #expect(throws: AtollError.self) {
            try SyncMessage(frame: Frame(kind: SyncMessage.Kind.welcome.rawValue, payload: Array(w.frame.payload.dropLast(3))))
        }
    }

    /// A node on an older schema connects after a newer one brought a class and a property:
    /// its file records the relay's history, and its schema status says what it lacks.
    @Test(arguments: RelayStoreKind.allCases)
    func anOlderNodeRecordsTheRealmsHistoryAndSeesWhatItLacks(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode(), y = try TestNode()
        try y.db.write { try SchemaEvolutionTests.upgrade($0) }
        try SchemaEvolutionTests.reopen(y)
        #expect(try SyncReplica.schemaStatus(of: x.db)?.relaySchemaHistory == nil)
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        // x came first: the history is x's schema.
        let first = try #require(try SyncReplica.schemaStatus(of: x.db))
        #expect(first.relaySchemaHistory?.history == first.schema)
        #expect(first.relaySchemaHistory?.relayID == net.relay.relayID)

        let sy = NodeSession(replica: y.replica)
        net.connect(sy, as: 2)
        net.settle()
        let atY = try #require(try SyncReplica.schemaStatus(of: y.db))
        #expect(atY.relaySchemaHistory?.history == atY.schema, "y brought everything the realm has")

        // x connects again: it records the grown history, which has what x lacks.
        net.perform(1, sx.pause())
        let sx2 = NodeSession(replica: x.replica)
        net.connect(sx2, as: 3)
        net.settle()
        #expect(sx2.state == .connected)
        let status = try #require(try SyncReplica.schemaStatus(of: x.db))
        let history = try #require(status.relaySchemaHistory?.history)
        #expect(history.schemaClass(named: "Tag") != nil && history.schemaClass(named: "Item")?.property(named: "color") != nil, "\(history)")
        #expect(status.schema.schemaClass(named: "Tag") == nil && status.schema.schemaClass(named: "Item")?.property(named: "color") == nil)
        #expect(history == (try status.schema.merging(atY.schema)))
        try x.replica.checkInvariants()
    }
}
