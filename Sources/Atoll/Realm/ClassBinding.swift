import AtollStorage

/// A model class bound to its table in one realm file: which column stores each property.
/// Immutable, so it may be shared by frozen realms' threads and thread-safe references.
@usableFromInline
final class ClassBinding: Sendable {
    let schema: ObjectSchema
    /// `ObjectIdentifier(schema.objectType)`.
    let typeID: ObjectIdentifier
    let tableKey: TableKey
    /// Per property index: the table column, or -1 (linking objects, ignored properties).
    let columns: [Int]
    /// Per property index, for linking objects: the origin table and column.
    let origins: [(table: TableKey, column: Int)?]
    /// Per property index: whether a managed object reads it from the database (false for
    /// ignored properties, whose values stay in the object).
    @usableFromInline let readsFromStorage: [Bool]
    let primaryKeyKind: PrimaryKeyConversion.Kind
    let hasPrimaryKey: Bool
    /// The property index of an int primary key that is the object key itself (-1: none): its
    /// value is known from the key, without reading the row.
    let keyAliasProperty: Int
    /// Whether every stored property is a scalar (no links, no lists): such objects are added
    /// in one table operation.
    let allStoredAreScalars: Bool

    /// No table in the file for the class (read-only or frozen realms): reads find no
    /// objects, and writes fail.
    init(unavailable schema: ObjectSchema) {
        self.schema = schema
        typeID = ObjectIdentifier(schema.objectType)
        tableKey = TableKey(UInt32.max)
        columns = Array(repeating: -1, count: schema.allProperties.count)
        origins = Array(repeating: nil, count: schema.allProperties.count)
        readsFromStorage = schema.allProperties.map { !$0.isIgnored }
        primaryKeyKind = PrimaryKeyConversion.kind(of: schema.primaryKeyProperty)
        hasPrimaryKey = schema.primaryKeyProperty != nil
        keyAliasProperty = -1
        allStoredAreScalars = false
    }

    init(schema: ObjectSchema, tableKey: TableKey, transaction: Transaction) throws {
        self.schema = schema
        typeID = ObjectIdentifier(schema.objectType)
        self.tableKey = tableKey
        guard let spec = transaction.spec(of: tableKey) else {
            throw AtollError(.schemaMismatch, "table '\(schema.className)' is missing")
        }
        var columns: [Int] = []
        var origins: [(TableKey, Int)?] = []
        var problems: [String] = []
        for p in schema.allProperties {
            if p.isLinkingObjects {
                columns.append(-1)
                let originName = p.objectClassName ?? ""
                if let ok = transaction.tableKey(named: originName), let os = transaction.spec(of: ok),
                   let oc = os.columnIndex(named: p.originProperty ?? ""), os.columns[oc].linkTarget == schema.className {
                    origins.append((ok, oc))
                } else if transaction.tableKey(named: originName) == nil {
                    // The origin class has no table yet: no object links here.
                    origins.append(nil)
                } else {
                    problems.append("'\(p.name)' is LinkingObjects<\(originName)> through '\(p.originProperty ?? "")', which is not a link to '\(schema.className)'")
                    origins.append(nil)
                }
                continue
            }
            origins.append(nil)
            guard p.isStored, let wanted = p.columnSpec else { columns.append(-1); continue }
            guard let c = spec.columnIndex(named: p.name) else {
                problems.append("property '\(p.name)' is not in the file")
                columns.append(-1)
                continue
            }
            let have = spec.columns[c]
            if have.type != wanted.type || have.isList != wanted.isList || have.isSet != wanted.isSet || have.isMap != wanted.isMap || have.isNullable != wanted.isNullable || have.linkTarget != wanted.linkTarget {
                problems.append("property '\(p.name)' is \(wanted) in the code but \(have) in the file")
            }
            columns.append(c)
        }
        if let pk = schema.primaryKeyProperty?.name, spec.primaryKey != pk {
            problems.append("the primary key is '\(pk)' in the code but '\(spec.primaryKey ?? "none")' in the file")
        }
        guard problems.isEmpty else {
            throw AtollError(.migrationRequired, "migration required for class '\(schema.className)': " + problems.joined(separator: "; ")
                + ". Increase schemaVersion and list the class in objectTypes (or set deleteRealmIfMigrationNeeded).")
        }
        self.columns = columns
        self.origins = origins
        readsFromStorage = schema.allProperties.map { !$0.isIgnored }
        primaryKeyKind = PrimaryKeyConversion.kind(of: schema.primaryKeyProperty)
        hasPrimaryKey = schema.primaryKeyProperty != nil
        if spec.keyIsPrimaryKey, let pk = spec.primaryKey, let i = schema.index(of: pk) {
            keyAliasProperty = i
        } else {
            keyAliasProperty = -1
        }
        allStoredAreScalars = schema.allProperties.allSatisfy { p in
            guard p.isStored else { return true }
            if case .scalar = p.atollType.kind { return true }
            return false
        }
    }
}
