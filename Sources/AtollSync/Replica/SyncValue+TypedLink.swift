import AtollStorage

// Typed links: a mixed value that links an object (`AnyRealmValue.object`) in a property, a list,
// a set or a map of mixed values. In storage it is the target's table and object key, both local
// to the file; in a changeset it travels as the target's class and primary key
// (`SyncValue.typedLink`, body format 5), like the links of link properties, whose class the
// schema gives. On a node, a typed link whose target is missing (deleted, or not arrived yet)
// shows nil (a list element or set element is hidden, a map shows nil under its key) and is
// remembered in `sync.dangling` under its target: re-creating the target brings it back, as for
// link properties (SyncWriter.resolveDangling). A property record remembers the target of its
// dangling typed link as a two-element nested list (class name, primary key)
// (`MixedLinkTarget`); list elements, sets and maps keep the travelling value itself.
//
// Only objects of synced classes can be addressed (they have a primary key on every node): a
// typed link to an object of a class that does not sync (one without a primary key, or left out
// of the synced classes) is refused when extracted, with an error naming the property.
//
// A mixed value holding a nested list or dictionary (Realm 10.51) does not sync yet: extracting
// one fails with an error naming the property, and a changeset that carries one is malformed.

extension SyncValue {
    /// Throws when `v` is a nested list or dictionary in a mixed value, which sync does not carry.
    static func refuseNestedCollection(_ v: StorageValue, _ c: SyncedClass, _ column: Int) throws {
        guard v.isNestedCollection else { return }
        throw AtollError(.typeMismatch,
            "'\(c.name).\(c.spec.columns[column].name)' holds a nested list or dictionary in a mixed value (AnyRealmValue), which sync does not carry yet")
    }

    /// Throws when a field of an embedded object holds a typed link or a nested collection: its
    /// record keeps stored values, which cannot name an object on another node.
    static func refuseInEmbeddedField(_ v: StorageValue, _ className: String, _ property: String) throws {
        switch v {
        case .typedLink:
            throw AtollError(.typeMismatch,
                "'\(className).\(property)' holds an object in a mixed value (AnyRealmValue) inside an embedded object, which sync does not carry yet; store the object's primary key instead")
        case .mixedList, .mixedMap:
            throw AtollError(.typeMismatch,
                "'\(className).\(property)' holds a nested list or dictionary in a mixed value (AnyRealmValue), which sync does not carry yet")
        default:
            return
        }
    }

    /// Stored value `v` of `column` of `c` as it travels: a link by its target's primary key
    /// (`primaryKey` reads it), a typed link by its target's class and primary key. Refuses a
    /// nested collection, and a typed link to an object sync cannot address.
    static func travelling(_ v: StorageValue, _ c: SyncedClass, _ column: Int, schema: SyncSchema, txn: Transaction,
                           primaryKey: (SyncedClass, ObjectKey) throws -> StorageValue) throws -> SyncValue
    {
        switch v {
        case .link(let target):
            guard let tc = c.linkTargets[column] else { throw AtollError.corrupted("'\(c.name)' column \(column) is not a synced link") }
            return .link(primaryKey: try primaryKey(tc, target))
        case .typedLink(let table, let target):
            guard let tc = schema.classes[table] else {
                let name = txn.spec(of: table)?.name ?? "table \(table.rawValue)"
                let why = txn.spec(of: table).map { $0.primaryKeyIndex == nil ? "'\(name)' has no primary key" : "'\(name)' does not sync" } ?? "the class is missing"
                throw AtollError(.typeMismatch,
                    "'\(c.name).\(c.spec.columns[column].name)' holds an object of '\(name)' in a mixed value (AnyRealmValue), which sync cannot address: \(why); only objects of synced classes (with a primary key) travel in mixed values")
            }
            return .typedLink(className: tc.name, primaryKey: try primaryKey(tc, target))
        default:
            try refuseNestedCollection(v, c, column)
            return .value(v)
        }
    }
}

extension SyncInstruction {
    /// Whether a value of the instruction is a typed link (body format 5).
    public var carriesTypedLink: Bool {
        switch self {
        case .set(_, _, let v), .listInsert(_, _, _, _, let v), .listSet(_, _, _, let v), .setAdd(_, _, let v),
             .setRemove(_, _, let v, _), .mapSet(_, _, _, let v):
            v.isTypedLink
        case .create, .erase, .addInteger, .listErase, .mapRemove:
            false
        }
    }
}

/// How a property's sync record (`ObjectRecord.Field.danglingTarget`) remembers the target of a
/// dangling typed link: a two-element nested list, class name then primary key. (A link
/// property remembers only the primary key: its class is the property's.)
enum MixedLinkTarget {
    static func recordValue(className: String, primaryKey: StorageValue) -> StorageValue {
        .mixedList([.string(className), primaryKey])
    }

    static func parse(_ v: StorageValue) -> (className: String, primaryKey: StorageValue)? {
        guard case .mixedList(let l) = v, l.count == 2, case .string(let name) = l[0] else { return nil }
        return (name, l[1])
    }
}

extension SyncWriter {
    /// The synced class and primary key a travelling value of `column` links to: a link
    /// property's target, or a typed link's own class (nil: no link, or a class this node does not
    /// sync).
    func linkTarget(_ c: SyncedClass, _ column: Int, _ v: SyncValue) -> (SyncedClass, StorageValue)? {
        switch v {
        case .link(let pk): c.linkTargets[column].map { ($0, pk) }
        case .typedLink(let name, let pk): schema.byName[name].map { ($0, pk) }
        case .value: nil
        }
    }

    /// What a property record remembers of dangling link `v` (ObjectRecord.Field.danglingTarget).
    func danglingRecordValue(_ v: SyncValue) -> StorageValue? {
        switch v {
        case .link(let pk): pk
        case .typedLink(let name, let pk): MixedLinkTarget.recordValue(className: name, primaryKey: pk)
        case .value: nil
        }
    }

    /// The remembered dangling target `dangling` of property `column` as the link travels.
    func danglingValue(_ c: SyncedClass, _ column: Int, _ dangling: StorageValue) -> SyncValue {
        if c.spec.columns[column].type == .mixed, case let (name, pk)? = MixedLinkTarget.parse(dangling) {
            return .typedLink(className: name, primaryKey: pk)
        }
        return .link(primaryKey: dangling)
    }

    /// The `sync.dangling` key of the target a property record remembers (`dangling`: a primary
    /// key, or for a mixed property the class and primary key). Nil for a class this node does
    /// not sync: nothing can re-create it here.
    func danglingTargetKey(_ c: SyncedClass, _ column: Int, _ dangling: StorageValue) -> [UInt8]? {
        if c.spec.columns[column].type == .mixed {
            guard case let (name, pk)? = MixedLinkTarget.parse(dangling), let tc = schema.byName[name] else { return nil }
            return SyncTrees.objectKey(tc.key, pk)
        }
        return c.linkTargets[column].map { SyncTrees.objectKey($0.key, dangling) }
    }

    /// A stored typed link of `column` as it travels (its target in the table).
    func travelling(_ v: StorageValue, _ c: SyncedClass, _ column: Int) throws -> SyncValue {
        try SyncValue.travelling(v, c, column, schema: schema, txn: txn) { tc, k in try table(tc).primaryKeyValue(k) }
    }
}
