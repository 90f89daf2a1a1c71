import AtollStorage

/// Creating tables for model classes and comparing the code's schema with the file's.
enum SchemaSetup {
    static let versionKey = "atoll.schemaVersion"

    static func schemaVersion(_ t: Transaction) throws -> UInt64? {
        guard let bytes = try t.metadata(versionKey), bytes.count == 8 else { return nil }
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self).littleEndian }
    }

    static func setSchemaVersion(_ v: UInt64, in w: WriteTransaction) throws {
        try w.setMetadata(versionKey, withUnsafeBytes(of: v.littleEndian) { Array($0) })
    }

    /// Without objectTypes: the valid classes used so far, except names several classes
    /// share (versions of one model kept side by side) and classes that link to such a name
    /// (directly or through other classes: their closure would bring in whichever class of
    /// that name it reaches, so two opens could check one file against two different classes).
    /// Those, and invalid classes, are checked where they are used instead of at every open.
    static func knownTypesToCheck() -> [Object.Type] {
        let valid = ObjectSchema.knownTypes.filter { ObjectSchema.of($0).error == nil }
        // Names shared among the classes used so far and every class they link to.
        let ambiguous = Set(Dictionary(grouping: closure(of: valid), by: { $0.className() }).filter { $0.value.count > 1 }.keys)
        guard !ambiguous.isEmpty else { return valid }
        return valid.filter { type in closure(of: [type]).allSatisfy { !ambiguous.contains($0.className()) } }
    }

    /// `types` plus every class they link to, transitively.
    static func closure(of types: [Object.Type]) -> [Object.Type] {
        var seen = Set<ObjectIdentifier>()
        var result: [Object.Type] = []
        var queue = types
        while let t = queue.popLast() {
            guard seen.insert(ObjectIdentifier(t)).inserted else { continue }
            result.append(t)
            for p in ObjectSchema.of(t).allProperties { if let o = p.atollType.objectType { queue.append(o) } }
        }
        return result
    }

    /// Creates the tables of `types` (and linked classes) that the file does not have.
    static func createMissingTables(for types: [Object.Type], in w: WriteTransaction) throws {
        for t in closure(of: types) {
            let schema = ObjectSchema.of(t)
            if let e = schema.error { throw e }
            if w.tableKey(named: schema.className) == nil { try w.createTable(schema.tableSpec) }
        }
    }

    /// Differences that need a migration, in words (empty: none).
    static func migrationDifferences(for types: [Object.Type], in t: Transaction) -> [String] {
        var problems: [String] = []
        for type in closure(of: types) {
            let schema = ObjectSchema.of(type)
            guard let key = t.tableKey(named: schema.className), let file = t.spec(of: key) else { continue }
            let code = schema.tableSpec
            for c in code.columns {
                guard let i = file.columnIndex(named: c.name) else { problems.append("property '\(schema.className).\(c.name)' has been added"); continue }
                let f = file.columns[i]
                if f.type != c.type || f.isList != c.isList || f.isSet != c.isSet || f.isMap != c.isMap || f.linkTarget != c.linkTarget {
                    problems.append("property '\(schema.className).\(c.name)' has changed type from \(f) to \(c)")
                } else if f.isNullable != c.isNullable {
                    problems.append("property '\(schema.className).\(c.name)' has been made \(c.isNullable ? "optional" : "required")")
                }
            }
            for f in file.columns where code.columnIndex(named: f.name) == nil {
                problems.append("property '\(schema.className).\(f.name)' has been removed")
            }
            if file.isEmbedded != code.isEmbedded {
                problems.append("class '\(schema.className)' has been made \(code.isEmbedded ? "embedded" : "top-level (no longer embedded)")")
            }
            if file.primaryKey != code.primaryKey {
                problems.append("the primary key of '\(schema.className)' has changed from '\(file.primaryKey ?? "none")' to '\(code.primaryKey ?? "none")'")
            }
        }
        return problems
    }

    /// Index changes that apply without a migration: (table, column, indexed).
    static func indexChanges(for types: [Object.Type], in t: Transaction) -> [(TableKey, Int, Bool)] {
        var changes: [(TableKey, Int, Bool)] = []
        for type in closure(of: types) {
            let schema = ObjectSchema.of(type)
            guard let key = t.tableKey(named: schema.className), let file = t.spec(of: key) else { continue }
            for c in schema.tableSpec.columns {
                if let i = file.columnIndex(named: c.name), file.columns[i].isIndexed != c.isIndexed { changes.append((key, i, c.isIndexed)) }
            }
        }
        return changes
    }
}

/// Opens the database of a configuration and brings its schema up to the code's.
enum RealmOpener {
    struct Opened { let database: Database }

    static func open(_ configuration: Realm.Configuration) throws -> Opened {
        let storage = try configuration.storageConfiguration()
        // A read-only open creates nothing (not even the directory) and compacts nothing.
        if let path = storage.path, !configuration.readOnly {
            try prepareDirectory(path)
            try configuration.copySeedFile(to: path)
            if let compact = configuration.shouldCompactOnLaunch, !Database.isOpen(path: path), FileManagerShim.exists(path) {
                let (total, used): (Int, Int) = try {
                    let db = try Database.open(storage)
                    let s = try db.stats()
                    return (s.fileSizeBytes, s.usedBytes)
                }()
                if compact(total, used) { _ = try Database.compact(path: path, encryptionKey: storage.encryptionKey) }
            }
        }
        var database = try Database.open(storage)
        let types = configuration.objectTypes ?? SchemaSetup.knownTypesToCheck()
        for t in types { if let e = ObjectSchema.of(t).error { throw e } }
        let (fileVersion, hasTables, differences) = try { () throws -> (UInt64?, Bool, [String]) in
            // Scoped so the transaction (and its reference to the database) is gone before a
            // possible deletion of the file below.
            let read = try database.beginRead()
            defer { read.close() }
            return (try SchemaSetup.schemaVersion(read), !read.tableKeys.isEmpty, SchemaSetup.migrationDifferences(for: types, in: read))
        }()

        if let fileVersion, configuration.schemaVersion < fileVersion, hasTables {
            throw AtollError(.schemaMismatch, "the schema version \(configuration.schemaVersion) is older than the file's version \(fileVersion)")
        }
        if !differences.isEmpty && hasTables {
            if configuration.deleteRealmIfMigrationNeeded, let path = storage.path, !configuration.readOnly {
                guard !Database.isOpenElsewhere(database) else {
                    throw AtollError(.fileLocked, "'\(path)' needs a migration and is open elsewhere; it cannot be deleted")
                }
                database = try recreate(path: path, storage: storage, releasing: &database)
            } else if configuration.deleteRealmIfMigrationNeeded, let id = configuration.inMemoryIdentifier {
                throw AtollError(.migrationRequired, "in-memory realm '\(id)' is open with another schema: " + differences.joined(separator: "; "))
            } else if configuration.schemaVersion <= (fileVersion ?? 0) {
                throw AtollError(.migrationRequired, "migration required: " + differences.joined(separator: "; ")
                    + ". Increase Realm.Configuration.schemaVersion (now \(configuration.schemaVersion)) and provide a migrationBlock if data must be converted.")
            } else {
                guard !configuration.readOnly else { throw AtollError(.readOnly, "a read-only realm cannot be migrated: " + differences.joined(separator: "; ")) }
                try MigrationRunner(database: database, configuration: configuration, types: types, oldVersion: fileVersion ?? 0).run()
                return Opened(database: database)
            }
        }
        if hasTables, configuration.migrationBlock != nil, configuration.schemaVersion > (fileVersion ?? 0), !configuration.readOnly {
            // As in Realm, a version bump runs the block even when the schema is unchanged
            // (a data-only migration).
            try MigrationRunner(database: database, configuration: configuration, types: types, oldVersion: fileVersion ?? 0).run()
            return Opened(database: database)
        }
        guard !configuration.readOnly else { return Opened(database: database) }
        // New classes, index changes and the schema version apply without a migration.
        let check = try database.beginRead()
        let missing = SchemaSetup.closure(of: types).contains { check.tableKey(named: ObjectSchema.of($0).className) == nil }
        let indexes = SchemaSetup.indexChanges(for: types, in: check)
        let versionStale = (try SchemaSetup.schemaVersion(check)) != configuration.schemaVersion && (!types.isEmpty || !hasTables)
        check.close()
        if missing || !indexes.isEmpty || versionStale {
            let w = try database.beginWrite()
            do {
                try SchemaSetup.createMissingTables(for: types, in: w)
                for (t, c, on) in SchemaSetup.indexChanges(for: types, in: w) { try w.setIndexed(t, c, on) }
                try SchemaSetup.setSchemaVersion(configuration.schemaVersion, in: w)
                try w.commit()
            } catch {
                w.rollback()
                throw error
            }
        }
        return Opened(database: database)
    }

    /// Deletes the file and opens a new one. `database` is released first so the process's
    /// registry does not hand the old instance back.
    private static func recreate(path: String, storage: DatabaseConfiguration, releasing database: inout Database) throws -> Database {
        database = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "atoll-recreate-placeholder"))
        guard FileManagerShim.remove(path) else { throw AtollError(.fileAccessDenied, "cannot delete '\(path)' to recreate it") }
        _ = FileManagerShim.remove(DatabaseConfiguration.lockPath(for: path))
        return try Database.open(storage)
    }

    private static func prepareDirectory(_ path: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        guard !dir.isEmpty, !FileManagerShim.exists(dir) else { return }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw AtollError(.fileAccessDenied, "cannot create the directory '\(dir)': \(error.localizedDescription)")
        }
    }
}

enum FileManagerShim {
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    static func remove(_ path: String) -> Bool { (try? FileManager.default.removeItem(atPath: path)) != nil || !exists(path) }
}

import Foundation
