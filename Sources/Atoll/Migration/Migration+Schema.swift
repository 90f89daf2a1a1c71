import AtollStorage

extension Migration {
    /// The schema of the file before the migration: its classes and their stored properties,
    /// as they were (classes the code no longer has included). Each class's `objectClass` is
    /// `Object` (the file has no model classes).
    public var oldSchema: Schema {
        var classes: [ObjectSchema] = []
        for (name, columns) in oldColumns {
            guard let key = transaction.tableKey(named: name), let spec = transaction.spec(of: key), !DynamicSchema.isInternal(name) else { continue }
            // Old property name -> its column now (moved aside when its type changed).
            let old = spec.columns.compactMap { column -> ColumnSpec? in
                guard let oldName = columns.first(where: { $0.value == column.name })?.key else { return nil }
                var c = column
                c.name = oldName
                return c
            }
            classes.append(ObjectSchema(fileSpec: TableSpec(name: name, columns: old, primaryKey: spec.primaryKey)))
        }
        return Schema(classes.sorted { $0.className < $1.className })
    }

    /// The schema the migration brings the file to: the model classes of the configuration.
    public var newSchema: Schema {
        let known = ObjectSchema.knownTypes.map(ObjectSchema.of)
        let classes = newSpecs.values.compactMap { spec in known.first { $0.tableSpec == spec } ?? ObjectSchema(fileSpec: spec) }
        return Schema(classes.sorted { $0.className < $1.className })
    }

    /// Creates an object of the new schema from an array of property values in the class's
    /// property order (RealmSwift's `migration.create("Person", value: ["Ann", 30])`).
    @discardableResult
    public func create(_ typeName: String, value: [Any]) -> MigrationObject? {
        guard let spec = newSpecs[typeName] else { return create(typeName, value: [String: Any]()) }
        var dictionary: [String: Any] = [:]
        for (column, v) in zip(spec.columns, value) { dictionary[column.name] = v }
        return create(typeName, value: dictionary)
    }
}
