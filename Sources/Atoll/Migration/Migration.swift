import AtollStorage

/// What a `migrationBlock` works with: the objects of the old schema, with both their old and
/// new properties, inside the one write transaction that migrates the file.
public final class Migration {
    let transaction: WriteTransaction
    let context: DynamicContext
    /// Old property name -> current column name, per class (type-changed properties were
    /// moved aside under a temporary name).
    var oldColumns: [String: [String: String]]
    let newSpecs: [String: TableSpec]

    /// The file as it was before the migration: `enumerateObjects` visits its objects only.
    let oldSnapshot: ReadTransaction

    init(transaction: WriteTransaction, oldSnapshot: ReadTransaction, oldColumns: [String: [String: String]], newSpecs: [String: TableSpec]) {
        self.transaction = transaction
        self.oldSnapshot = oldSnapshot
        let errors = MigrationErrors()
        // The subscript setter ignores failures in a migration, so one block can serve every old
        // version (setting a property a later schema dropped does nothing); `setValue` throws.
        context = DynamicContext(transaction, reportError: { _ in })
        self.errors = errors
        self.oldColumns = oldColumns
        self.newSpecs = newSpecs
    }

    /// Failures of non-throwing calls, thrown when the migration block returns.
    private let errors: MigrationErrors
    var error: AtollError? { errors.first }

    private func record(_ e: any Error) {
        errors.record(e as? AtollError ?? AtollError(.invalidArgument, "\(e)"))
    }

    /// Calls `block` for every object of a class in the old file (not those the migration
    /// created, as in RealmSwift, nor those it deleted) with its old and new views.
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        do {
            guard let t = try transaction.table(named: typeName), let before = try oldSnapshot.table(named: typeName) else { return }
            let old = oldColumns[typeName]
            let new = newSpecs[typeName].map { Set($0.columns.map(\.name)) }
            let oldClass = old == nil ? nil : oldSchema[typeName]
            let newClass = new == nil ? nil : newSchema[typeName]
            for key in try before.objectKeys() where try transaction.table(t.key).contains(key) {
                let oldObject = old.map { map in DynamicObject(context: context, tableKey: t.key, key: key, columnName: { map[$0] }, schema: oldClass) }
                let newObject = new.map { names in DynamicObject(context: context, tableKey: t.key, key: key, columnName: { names.contains($0) ? $0 : nil }, schema: newClass) }
                block(oldObject, newObject)
            }
        } catch { record(error) }
    }

    /// Creates an object of the new schema from a dictionary of property values.
    @discardableResult
    public func create(_ typeName: String, value: [String: Any] = [:]) -> MigrationObject? {
        do {
            guard let t = try transaction.table(named: typeName) else { throw AtollError(.invalidArgument, "no class '\(typeName)'") }
            let pk = t.spec.primaryKey.map { value[$0] }
            let key: ObjectKey
            if let pkIndex = t.spec.primaryKeyIndex, let given = pk {
                key = try t.create(primaryKey: try DynamicValues.scalar(given, column: t.spec.columns[pkIndex], className: typeName))
            } else {
                key = try t.create()
            }
            let object = DynamicObject(context: context, tableKey: t.key, key: key)
            for (name, v) in value where name != t.spec.primaryKey { try object.setValue(v, forProperty: name) }
            return object
        } catch { record(error); return nil }
    }

    /// Deletes an object during the migration.
    public func delete(_ object: MigrationObject) {
        do { try transaction.table(object.tableKey).erase(object.key) } catch { record(error) }
    }

    /// Deletes every object of a class (and the class, if the new schema no longer has it).
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        do {
            guard let t = try transaction.table(named: typeName) else { return false }
            if newSpecs[typeName] == nil {
                try transaction.removeTable(t.key)
            } else {
                try t.clear()
            }
            return true
        } catch { record(error); return false }
    }

    /// Renames a property, keeping its values: the old property becomes the new one.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        do {
            guard let t = try transaction.table(named: typeName) else { throw AtollError(.invalidArgument, "no class '\(typeName)'") }
            guard let source = oldColumns[typeName]?[oldName], let from = t.columnIndex(named: source) else {
                throw AtollError(.invalidArgument, "'\(typeName)' has no old property '\(oldName)' to rename")
            }
            if let added = t.columnIndex(named: newName) {
                let a = t.spec.columns[added], f = t.spec.columns[from]
                guard a.type == f.type, a.isList == f.isList, a.isSet == f.isSet, a.isMap == f.isMap, a.linkTarget == f.linkTarget else {
                    throw AtollError(.schemaMismatch, "cannot rename '\(typeName).\(oldName)' (\(f)) to '\(newName)' (\(a)): the types differ")
                }
                try transaction.removeColumn(t.key, added)
            }
            guard let fromIndex = try transaction.table(named: typeName)?.columnIndex(named: source) else { return }
            try transaction.renameColumn(t.key, fromIndex, to: newName)
            if let wanted = newSpecs[typeName]?.columns.first(where: { $0.name == newName }),
               let i = try transaction.table(named: typeName)?.columnIndex(named: newName),
               (try transaction.table(named: typeName)?.spec.columns[i].isIndexed) != wanted.isIndexed {
                try transaction.setIndexed(t.key, i, wanted.isIndexed)
            }
            oldColumns[typeName]?[oldName] = newName
        } catch { record(error) }
    }
}

/// The first failure of a migration's non-throwing calls.
final class MigrationErrors {
    private(set) var first: AtollError?
    func record(_ e: AtollError) { if first == nil { first = e } }
}

/// Applies a schema change: adds new columns (moving type-changed ones aside), runs the
/// migration block, then drops what the new schema no longer has — all in one transaction.
struct MigrationRunner {
    let database: Database
    let configuration: Realm.Configuration
    let types: [Object.Type]
    let oldVersion: UInt64

    static let asidePrefix = "__atoll_old_"

    func run() throws {
        let w = try database.beginWrite()
        do {
            try migrate(w)
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
    }

    private func migrate(_ w: WriteTransaction) throws {
        let classes = SchemaSetup.closure(of: types).map(ObjectSchema.of)
        var oldColumns: [String: [String: String]] = [:]
        var newSpecs: [String: TableSpec] = [:]
        for s in classes { newSpecs[s.className] = s.tableSpec }
        // Every old class keeps its old view, including classes the code no longer lists.
        for key in w.tableKeys {
            guard let spec = w.spec(of: key) else { continue }
            oldColumns[spec.name] = Dictionary(spec.columns.map { ($0.name, $0.name) }, uniquingKeysWith: { a, _ in a })
        }
        try SchemaSetup.createMissingTables(for: types, in: w)
        for schema in classes {
            guard let t = try w.table(named: schema.className) else { continue }
            for c in schema.tableSpec.columns {
                if let i = t.columnIndex(named: c.name) {
                    let f = t.spec.columns[i]
                    guard f.type != c.type || f.isList != c.isList || f.isSet != c.isSet || f.isMap != c.isMap || f.linkTarget != c.linkTarget
                        || f.isNullable != c.isNullable else { continue }
                    let aside = Self.asidePrefix + c.name
                    try w.renameColumn(t.key, i, to: aside)
                    oldColumns[schema.className]?[c.name] = aside
                    let added = try w.addColumn(t.key, c)
                    if f.type == c.type, f.isList == c.isList, f.isSet == c.isSet, f.isMap == c.isMap, f.linkTarget == c.linkTarget {
                        // Only optionality changed: carry the values over (nil becomes the default).
                        try copyValues(table: t.key, from: aside, to: added, w)
                    }
                } else {
                    try w.addColumn(t.key, c)
                }
            }
        }
        if let block = configuration.migrationBlock {
            // The writer holds the write lock: the newest version is the one being migrated.
            let oldSnapshot = try database.beginRead()
            defer { oldSnapshot.close() }
            let migration = Migration(transaction: w, oldSnapshot: oldSnapshot, oldColumns: oldColumns, newSpecs: newSpecs)
            block(migration, oldVersion)
            if let e = migration.error { throw e }
        }
        // Drop what the new schema does not have (and the moved-aside columns).
        for schema in classes {
            guard var t = try w.table(named: schema.className) else { continue }
            for name in t.spec.columns.map(\.name) where schema.tableSpec.columnIndex(named: name) == nil {
                if let i = t.columnIndex(named: name) { try w.removeColumn(t.key, i) }
                t = try w.table(t.key)
            }
            if t.spec.primaryKey != schema.tableSpec.primaryKey {
                guard t.count == 0 else {
                    throw AtollError(.migrationRequired, "changing the primary key of '\(schema.className)' (to '\(schema.tableSpec.primaryKey ?? "none")') is only supported while it has no objects; delete them in the migration block (migration.deleteData(forType:)) and recreate them")
                }
                try w.setPrimaryKey(t.key, schema.tableSpec.primaryKey)
            }
            if t.spec.isEmbedded != schema.tableSpec.isEmbedded {
                // As in Realm: objects of a class made embedded that nothing links to are
                // deleted; one linked from two places fails the migration (WriteTransaction.setEmbedded).
                try w.setEmbedded(t.key, schema.tableSpec.isEmbedded)
            }
            for (i, c) in schema.tableSpec.columns.enumerated() {
                if let j = t.columnIndex(named: c.name), t.spec.columns[j].isIndexed != c.isIndexed { try w.setIndexed(t.key, j, c.isIndexed) }
                _ = i
            }
        }
        try SchemaSetup.setSchemaVersion(configuration.schemaVersion, in: w)
    }

    private func copyValues(table key: TableKey, from aside: String, to column: Int, _ w: WriteTransaction) throws {
        let t = try w.table(key)
        guard let source = t.columnIndex(named: aside) else { return }
        let spec = t.spec.columns[column]
        for k in try t.objectKeys() {
            if spec.isMap {
                try t.mapAssign(k, column, try t.mapEntries(k, source).filter { !$0.value.isNull || spec.isNullable })
            } else if spec.isSet {
                try t.setAssign(k, column, try t.listValues(k, source).filter { !$0.isNull || spec.isNullable })
            } else if spec.isList {
                try t.setList(k, column, try t.listValues(k, source).filter { !$0.isNull || spec.isNullable })
            } else {
                let v = try t.value(k, source)
                if v.isNull && !spec.isNullable { continue }
                try t.set(k, column, v)
            }
        }
    }
}
