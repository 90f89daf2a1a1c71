import AtollStorage

extension SyncSchema {
    /// Embedded objects have no merge rules in sync yet (they would merge as part of their
    /// parent, addressed by its primary key and the path): a synced class that holds them, or
    /// an embedded class itself, is refused when sync starts, before anything is sent.
    static func refuseEmbedded(_ selected: [TableKey], _ txn: Transaction) throws {
        for k in selected {
            guard let spec = txn.spec(of: k) else { continue }
            for col in spec.columns where col.type == .link {
                guard let target = col.linkTarget, let targetKey = txn.tableKey(named: target),
                      txn.spec(of: targetKey)?.isEmbedded == true else { continue }
                throw AtollError(.schemaMismatch,
                    "'\(spec.name).\(col.name)' holds embedded objects ('\(target)'); embedded objects do not sync yet: leave '\(spec.name)' out of the synced classes")
            }
        }
        for k in selected {
            guard let spec = txn.spec(of: k), spec.isEmbedded else { continue }
            throw AtollError(.schemaMismatch,
                "'\(spec.name)' is an embedded class; embedded objects do not sync yet: leave it out of the synced classes")
        }
    }
}
