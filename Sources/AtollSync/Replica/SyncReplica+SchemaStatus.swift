public import AtollStorage

/// What a node's file says about its synced schema, read without starting sync (`atoll schema
/// --sync`): whether the schema it has now is the one it last synced with (after a migration it
/// is not, until sync starts and adopts it), and what it keeps aside for classes and properties
/// other nodes have and it lacks (docs/SYNC.md, "Schema changes").
public struct SyncSchemaStatus: Sendable, Equatable {
    /// The realm the file syncs.
    public let realmID: String
    /// The node's identity.
    public let nodeID: NodeID
    /// The synced schema of the file now is the one it last synced with. False after a migration
    /// changed it: sync adopts the new one when it starts (SyncReplica.open).
    public let isAdopted: Bool
    /// Instructions from other nodes kept aside, by what they name that this node's schema lacks:
    /// "Class" for a class, "Class.property" for a property; applied when the schema gains it.
    public let kept: [String: Int]
    /// The node's synced schema now, described as the relay's history describes schemas.
    public let schema: SyncSchemaDescription
    /// The realm's schema history as the relay sent it when the node last connected (sync
    /// protocol 5), with the relay's id; nil before such a connection.
    public let relaySchemaHistory: (relayID: NodeID, history: SyncSchemaDescription)?

    /// Equal when every field is.
    public static func == (a: SyncSchemaStatus, b: SyncSchemaStatus) -> Bool {
        a.realmID == b.realmID && a.nodeID == b.nodeID && a.isAdopted == b.isAdopted && a.kept == b.kept && a.schema == b.schema
            && a.relaySchemaHistory?.relayID == b.relaySchemaHistory?.relayID && a.relaySchemaHistory?.history == b.relaySchemaHistory?.history
    }
}

extension SyncReplica {
    /// The sync status of `database`'s synced schema (`classes`: the synced classes, nil for
    /// every class, as in `ReplicaConfiguration`), or nil when sync never started on the file.
    /// Reads one snapshot; changes nothing.
    public static func schemaStatus(of database: Database, classes: [String]? = nil) throws -> SyncSchemaStatus? {
        let r = try database.beginRead()
        defer { r.close() }
        guard let state = try loadState(r) else { return nil }
        let schema = try SyncSchema.load(r, classNames: classes)
        var kept: [String: Int] = [:]
        try r.forEachInternalEntry(SyncTrees.unknown, from: []) { _, body in
            var decoder = try ChangesetBodyDecoder(body, origin: .zero, snapshot: true)
            guard let i = try decoder.next() else { throw AtollError.corrupted("sync.unknown holds an empty instruction") }
            // A class the schema lacks, or a property of a class it has.
            var name = decoder.classes[i.object.classIndex]
            if schema.byName[name] != nil || schema.embedded[name] != nil, let p = i.property { name += "." + decoder.properties[p] }
            kept[name, default: 0] += 1
            return true
        }
        return SyncSchemaStatus(realmID: state.realmID, nodeID: state.nodeID, isAdopted: state.fingerprint == schema.fingerprint, kept: kept,
                                schema: SyncSchema.describe(schema.classes.values, embedded: Array(schema.embedded.values)),
                                relaySchemaHistory: try relaySchemaHistory(r))
    }
}
