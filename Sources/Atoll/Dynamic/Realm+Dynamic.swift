import AtollStorage
import AtollQuery
public import Dispatch

extension Realm {
    /// Opens a realm for the dynamic API: classes and properties by name, with a schema known
    /// only at run time.
    ///
    /// The realm's classes are the file's. With `dynamicSchema`, classes the file lacks are
    /// created (in one write transaction), and classes it has must match: the same stored
    /// properties with the same types and the same primary key (indexes may differ; a changed
    /// class needs a migration). Model classes are not involved: `objectTypes` nil is taken as
    /// none.
    ///
    /// ```swift
    /// let schema = try DynamicSchema(json: String(decoding: schemaFile, as: UTF8.self))
    /// let realm = try Realm(configuration: .init(fileURL: url), dynamicSchema: schema)
    /// try realm.write { try realm.dynamicCreate("Dog", value: ["id": 1, "name": "Rex"]) }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the file to open and how.
    ///   - dynamicSchema: classes to create when the file lacks them and to check otherwise;
    ///     nil: the file's classes as they are.
    ///   - queue: confine the realm to this queue (it then refreshes itself and delivers
    ///     notifications there when others commit); nil: the current thread.
    public convenience init(configuration: Configuration, dynamicSchema: DynamicSchema?, queue: DispatchQueue? = nil) throws {
        var c = configuration
        if c.objectTypes == nil { c.objectTypes = [] }
        try self.init(configuration: c, queue: queue)
        if let dynamicSchema { try applySchema(dynamicSchema) }
    }

    /// The schema of the file's classes (Atoll's internal classes left out), sorted by name.
    public var dynamicSchema: DynamicSchema {
        verifyThread()
        return DynamicSchema(transaction: transaction)
    }

    /// Creates the classes of `schema` that the file lacks and checks the others against it
    /// (see ``init(configuration:dynamicSchema:queue:)``). Inside a write transaction the classes are
    /// created in it; otherwise in a write of their own.
    ///
    /// - Throws: `.schemaMismatch` listing every difference; `.invalidInput` for an invalid schema.
    public func applySchema(_ schema: DynamicSchema) throws {
        try checkThread()
        try schema.validate()
        let problems = Self.differences(between: schema, and: transaction)
        guard problems.isEmpty else {
            throw AtollError(.schemaMismatch, "the schema does not match the classes in '\(database.displayName)': " + problems.joined(separator: "; ")
                + " (changing an existing class needs a migration)")
        }
        let missing = schema.classes.filter { transaction.tableKey(named: $0.name) == nil }
        guard !missing.isEmpty else { return }
        guard !isFrozen, !configuration.readOnly else {
            throw AtollError(.readOnly, "cannot add class '\(missing[0].name)': the realm is \(isFrozen ? "frozen" : "read-only")")
        }
        if let w = writeTransaction {
            for c in missing { try w.createTable(c.tableSpec) }
        } else {
            try write {
                guard let w = writeTransaction else { return }
                // Another process may have created some of them meanwhile.
                try applySchema(DynamicSchema(classes: missing.filter { w.tableKey(named: $0.name) == nil }))
            }
        }
    }

    /// The differences between the schema's classes and the same classes in the file.
    static func differences(between schema: DynamicSchema, and transaction: Transaction) -> [String] {
        var problems: [String] = []
        for c in schema.classes {
            guard let key = transaction.tableKey(named: c.name), let spec = transaction.spec(of: key) else { continue }
            let file = DynamicClassSchema(spec)
            for p in c.properties where !p.isLinkingObjects {
                guard let f = file[property: p.name], !f.isLinkingObjects else {
                    problems.append("'\(c.name).\(p.name)' is not in the file")
                    continue
                }
                if f.type != p.type || f.isList != p.isList || f.isSet != p.isSet || f.isMap != p.isMap || f.isOptional != p.isOptional {
                    problems.append("'\(c.name).\(p.name)' is \(p.typeString) in the schema but \(f.typeString) in the file")
                }
            }
            for f in file.properties where !f.isLinkingObjects && c[property: f.name] == nil {
                problems.append("'\(c.name).\(f.name)' (\(f.typeString)) is in the file but not in the schema")
            }
            if file.primaryKey != c.primaryKey {
                problems.append("the primary key of '\(c.name)' is '\(c.primaryKey ?? "none")' in the schema but '\(file.primaryKey ?? "none")' in the file")
            }
            if file.isEmbedded != c.isEmbedded {
                problems.append("'\(c.name)' is \(c.isEmbedded ? "embedded" : "not embedded") in the schema but \(file.isEmbedded ? "embedded" : "not embedded") in the file")
            }
        }
        return problems
    }

    // MARK: reading

    /// The table of a user class, or an error naming the classes there are.
    func dynamicTable(_ className: String) throws -> Table {
        try checkThread()
        guard !DynamicSchema.isInternal(className), let t = try transaction.table(named: className) else {
            let names = transaction.tableSpecs.map(\.name).filter { !DynamicSchema.isInternal($0) }
            let suggestion = NameSuggestion.closest(to: className, among: names).map { "; did you mean '\($0)'?" }
                ?? (names.isEmpty ? " (it has no classes)" : " (classes: \(names.sorted().joined(separator: ", ")))")
            throw AtollError(.invalidArgument, "'\(database.displayName)' has no class '\(className)'\(suggestion)")
        }
        return t
    }

    /// Every object of a class, as live, filterable and sortable results. Like
    /// ``dynamicObjects(_:)``, throwing for a class the realm does not have (names that come
    /// from input, as in the `atoll` tool).
    ///
    /// - Throws: `.invalidArgument` when the realm has no such class.
    public func dynamicObjects(throwing className: String) throws -> DynamicResults {
        let t = try dynamicTable(className)
        return DynamicResults(core: ResultsCore(realm: self, binding: DynamicClass(tableKey: t.key, className: t.name), source: .table, query: nil))
    }

    /// The object of a class with the given primary key, or nil. Like
    /// ``dynamicObject(ofType:forPrimaryKey:)``, throwing for an unknown class, a class without
    /// a primary key or a key of the wrong type.
    public func dynamicObject(throwingOfType className: String, forPrimaryKey key: Any?) throws -> DynamicObject? {
        let t = try dynamicTable(className)
        guard let pk = t.spec.primaryKeyIndex else { throw AtollError(.invalidArgument, "'\(className)' has no primary key") }
        let value = try DynamicValues.scalar(key, column: t.spec.columns[pk], className: className)
        guard let found = try t.find(primaryKey: value) else { return nil }
        return DynamicObject(context: DynamicContext(realm: self), tableKey: t.key, key: found)
    }

    /// The object of a class with the given key (``DynamicObject/key``), or nil when no such
    /// object exists at the realm's version; throws for an unknown class. Keys are stable while
    /// an object exists, so a key read earlier finds the object again (the `atoll studio`
    /// inspector follows links this way).
    public func dynamicObject(throwingOfType className: String, key: ObjectKey) throws -> DynamicObject? {
        let t = try dynamicTable(className)
        guard try t.contains(key) else { return nil }
        return DynamicObject(context: DynamicContext(realm: self), tableKey: t.key, key: key)
    }

    // MARK: writing

    /// Creates an object of a class from property values, inside a write transaction. Nested
    /// dictionaries create linked objects; a link may also be a `DynamicObject` or the target's
    /// primary-key value. With `.modified` or `.all`, an existing object with the same primary
    /// key is updated (`.modified` writes only the values that differ) and properties not
    /// given keep their values. On a new object, properties not given are nil (optional) or
    /// empty (lists); a required property not given is an error.
    ///
    /// A failure is thrown, and also makes the enclosing write throw, so a half-made object is
    /// never committed.
    @discardableResult
    public func dynamicCreate(_ className: String, value: [String: Any?] = [:], update: UpdatePolicy = .error) throws -> DynamicObject {
        let context = DynamicContext(realm: self)
        try context.checkWrite()
        let t = try dynamicTable(className)
        if t.spec.isEmbedded {
            let e = AtollError(.invalidArgument, "embedded objects cannot be created directly: '\(className)' is embedded; give it as a value of its parent's property")
            recordError(e)
            throw e
        }
        var writer = DynamicWriter(context: context, update: update)
        do {
            let key = try writer.create(in: t, values: value)
            return DynamicObject(context: context, tableKey: t.key, key: key)
        } catch let e as AtollError {
            recordError(e)
            if e.kind == .primaryKeyExists && update == .error {
                throw AtollError(e.kind, e.message + "; pass update: .modified or .all to update it")
            }
            throw e
        }
    }

    /// Deletes an object (inside a write transaction). Links to it become nil; lists drop it.
    public func delete(_ object: DynamicObject) throws {
        try delete([object])
    }

    /// Deletes the objects of a sequence (a `DynamicResults` or an array), inside a write
    /// transaction. Objects already deleted are skipped.
    public func delete<S: Sequence>(_ objects: S) throws where S.Element == DynamicObject {
        try DynamicContext(realm: self).checkWrite()
        guard let w = writeTransaction else { return }
        let targets = objects.map { ($0.tableKey, $0.key, $0.context.transaction.database) }
        for (tableKey, key, db) in targets {
            guard db === database else { throw AtollError(.invalidArgument, "the object belongs to another Realm") }
            let t = try w.table(tableKey)
            if try t.contains(key) { try t.erase(key) }
        }
    }
}
