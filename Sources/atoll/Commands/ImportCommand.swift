import ArgumentParser
import Atoll
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `atoll import DBPATH --schema SCHEMA.json [--data DATA.json] [--update modified|all]`
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a database with a schema, or check the schema of an existing one, and import objects.",
        discussion: """
        The schema is a JSON array of classes in realm-js notation:
          [{"name": "Dog", "primaryKey": "id", "properties": {
              "id": "int", "name": "string", "owner": "Person?", "tags": "string[]",
              "vets": {"type": "linkingObjects", "objectType": "Vet",
                       "property": "patients"}}}]
        Types: bool int float double string data date uuid objectId decimal128, a class name
        for a link, T? for optional, T[] for a list. A decimal128 is a string such as "19.99".

        Classes the database lacks are added; classes it has must match the schema.

        The data is {"Class": [objects...], ...}. A link is a nested object, or the primary-key value of \
        an object in the database or anywhere in the file. Dates are ISO-8601 strings (up to 9 \
        fractional digits), data is base64, NaN and the infinities are the strings "NaN", "Infinity", \
        "-Infinity". {"likes": {"$inc": 1}} adds to an integer property as a counter (with --update, \
        increments imported on different synced nodes all count). The import is one transaction: if anything fails, the database is left as it was \
        (and a database the import created is removed).
        """
    )

    enum UpdateMode: String, ExpressibleByArgument, CaseIterable {
        case modified, all

        var policy: Realm.UpdatePolicy { self == .modified ? .modified : .all }
    }

    @Argument(help: "The database file (created if it does not exist).")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @Option(help: "The schema file (JSON, realm-js notation).")
    var schema: String

    @Option(help: "The data file to import (JSON).")
    var data: String?

    @Option(help: "Update objects whose primary key exists instead of failing: 'modified' writes only changed values, 'all' every given value.")
    var update: UpdateMode?

    func run() throws {
        let out = Output()
        let schemaBytes = try DatabaseAccess.readFile(schema, what: "schema file")
        let dynamicSchema = try DynamicSchema(jsonBytes: schemaBytes, sourceName: schema)
        let progress = ProgressBar.forTerminal(label: "importing " + ((data ?? "") as NSString).lastPathComponent)
        defer { progress?.finish() }
        var document: ImportDocument?
        if let data {
            let bytes = try DatabaseAccess.readFile(data, what: "data file")
            // Only files large enough to take a while get a bar.
            let bar = bytes.count >= 1 << 20 ? progress : nil
            document = try ImportDocument(jsonBytes: bytes, sourceName: data, progress: { done in
                bar?.update("parsing", completed: done, total: bytes.count)
            })
        }
        let key = try encryption.key()
        let existed = DatabaseAccess.exists(dbpath)
        let summary: ImportSummary
        do {
            summary = try importData(dynamicSchema, document, key: key, progress: (document?.objectCount ?? 0) >= 10_000 ? progress : nil)
        } catch let e as AtollError where e.kind == .primaryKeyExists && update == nil {
            progress?.finish()
            if !existed { _ = try? Realm.deleteFiles(for: DatabaseAccess.configuration(dbpath, readOnly: false, key: nil)) }
            throw AtollError(e.kind, e.message + "; pass --update modified or --update all to update existing objects")
        } catch {
            progress?.finish()
            // A database this import created must not be left behind, half made or empty.
            if !existed { _ = try? Realm.deleteFiles(for: DatabaseAccess.configuration(dbpath, readOnly: false, key: nil)) }
            throw error
        }
        if document != nil {
            try out.line("imported \(summary.created + summary.updated) objects into \(dbpath): \(summary.created) created, \(summary.updated) updated")
        } else {
            try out.line("\(existed ? "checked" : "created") \(dbpath): \(dynamicSchema.classes.count) classes")
        }
    }

    /// Schema and objects in one write transaction. The realm is closed on return.
    private func importData(_ schema: DynamicSchema, _ document: ImportDocument?, key: EncryptionKey?, progress: ProgressBar?) throws -> ImportSummary {
        if DatabaseAccess.exists(dbpath) { try DatabaseAccess.requireExisting(dbpath) }
        let realm = try Realm(configuration: DatabaseAccess.dynamicConfiguration(dbpath, readOnly: false, key: key), dynamicSchema: nil)
        return try realm.write {
            try realm.applySchema(schema)
            guard let document else { return ImportSummary() }
            let summary = try realm.importObjects(document, update: update?.policy ?? .error) { p in
                switch p.phase {
                case .creating: progress?.update("creating objects", completed: p.completed, total: p.total)
                case .linking: progress?.update("setting links", completed: p.completed, total: p.total)
                }
            }
            progress?.update("committing", completed: 1, total: 1)
            return summary
        }
    }
}
