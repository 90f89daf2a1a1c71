import AtollStorage

// The realm's schema history as the node last saw it (docs/SYNC.md, "Schema changes"): the relay
// sends it in `welcome` (sync protocol 5), the node keeps it in its file so that
// `atoll schema FILE --sync` can show, without a connection, what the realm holds that the node's
// schema lacks.
//
//   sync.relaySchema   "history"   -> 16-byte relay id ++ SyncSchemaDescription.encode()

extension SyncTrees {
    static let relaySchema = "sync.relaySchema"
    static let relaySchemaKey: [UInt8] = Array("history".utf8)
}

extension SyncReplica {
    /// Records the realm's schema history relay `relay` sent, when it is not the one recorded
    /// (one commit, which also extracts pending local commits, as every sync commit does).
    public func recordRelaySchemaHistory(_ history: SyncSchemaDescription, relay: NodeID) throws {
        let value = relay.bytes + history.encode()
        let recorded = try { () throws -> [UInt8]? in
            let r = try database.beginRead()
            defer { r.close() }
            return try r.internalValue(SyncTrees.relaySchema, key: SyncTrees.relaySchemaKey)
        }()
        guard recorded != value else { return }
        _ = try write { w in
            _ = try w.extractPendingLocalCommits()
            try w.txn.putInternal(SyncTrees.relaySchema, key: SyncTrees.relaySchemaKey, value: value)
        }
    }

    /// The recorded history, with the relay that sent it (nil: none recorded).
    static func relaySchemaHistory(_ t: Transaction) throws -> (relayID: NodeID, history: SyncSchemaDescription)? {
        guard let value = try t.internalValue(SyncTrees.relaySchema, key: SyncTrees.relaySchemaKey) else { return nil }
        guard value.count > 16, let relay = NodeID(bytes: value.prefix(16)) else {
            throw AtollError.corrupted("sync.relaySchema holds \(value.count) bytes")
        }
        return (relay, try SyncSchemaDescription.decode(Array(value.dropFirst(16)), fromPeer: false))
    }
}
