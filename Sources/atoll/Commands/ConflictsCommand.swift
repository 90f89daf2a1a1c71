import ArgumentParser
import Atoll
import AtollStorage
import AtollSync
import Foundation

/// `atoll conflicts DBPATH ['PREDICATE'] [--json]`
struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Print the conflicts sync recorded in a file: writes that lost a merge to a concurrent write or delete.",
        discussion: """
        Each entry has the properties kind ('concurrent write', 'write voided by delete', \
        'delete overridden', 'concurrent list element write'), className, primaryKey, property, \
        element, winningValue, losingValue (values as text; null for a delete), winningNode, \
        losingNode, winningStamp, losingStamp, decidedInVersion (the local commit that decided it) \
        and recordedAt (milliseconds since 1970), and the predicate may use any of them, e.g. \
        "className == 'Task' AND property == 'title'". Entries print in the order of the losing \
        write's stamp, the same on every node.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @Argument(help: "A predicate in Realm's query language over the entries.")
    var predicate: String = "TRUEPREDICATE"

    @OptionGroup var encryption: KeyFileOption

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    static let columns: [ColumnSpec] = [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "kind", type: .string),
        ColumnSpec(name: "className", type: .string),
        ColumnSpec(name: "primaryKey", type: .string, isNullable: true),
        ColumnSpec(name: "property", type: .string, isNullable: true),
        ColumnSpec(name: "element", type: .string, isNullable: true),
        ColumnSpec(name: "winningValue", type: .string, isNullable: true),
        ColumnSpec(name: "losingValue", type: .string, isNullable: true),
        ColumnSpec(name: "winningNode", type: .string),
        ColumnSpec(name: "losingNode", type: .string),
        ColumnSpec(name: "winningStamp", type: .string),
        ColumnSpec(name: "losingStamp", type: .string),
        ColumnSpec(name: "decidedInVersion", type: .int),
        ColumnSpec(name: "recordedAt", type: .int),
    ]

    /// A value as the predicate compares it: strings without quotes, links as the target's key.
    static func text(_ v: StorageValue) -> StorageValue {
        switch v {
        case .null: .null
        case .string(let s): .string(s)
        default: .string(v.description)
        }
    }

    static func text(_ v: SyncValue?) -> StorageValue {
        switch v {
        case nil: .null
        case .value(let s)?: text(s)
        case .link(let pk)?: text(pk)
        }
    }

    func run() throws {
        let out = Output()
        let database = try DatabaseAccess.openDatabase(dbpath, key: try encryption.key())
        let conflicts = try Conflict.all(in: database)
        // The query language runs over tables: the entries become objects of an in-memory realm.
        let identifier = "atoll-conflicts-\(UUID().uuidString)"
        let memory = try Database.open(DatabaseConfiguration(inMemoryIdentifier: identifier))
        let w = try memory.beginWrite()
        do {
            let t = try w.table(try w.createTable(TableSpec(name: "Conflict", columns: Self.columns, primaryKey: "id")))
            for (i, c) in conflicts.enumerated() {
                let row: [StorageValue] = [
                    .int(Int64(i + 1)), .string(c.kind.description), .string(c.className), Self.text(c.primaryKey),
                    c.property.map { .string($0) } ?? .null, c.listElement.map { .string($0.description) } ?? .null,
                    Self.text(c.winningValue), Self.text(c.losingValue),
                    .string(c.winningNode.description), .string(c.losingNode.description),
                    .string(c.winningStamp.description), .string(c.losingStamp.description),
                    .int(Int64(clamping: c.decidedInVersion)), .int(Int64(clamping: c.recordedAtMilliseconds)),
                ]
                let k = try t.create(primaryKey: row[0])
                for column in 1..<row.count { try t.set(k, column, row[column]) }
            }
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
        var configuration = Realm.Configuration(inMemoryIdentifier: identifier)
        configuration.objectTypes = []
        let realm = try Realm(configuration: configuration, dynamicSchema: nil)
        let objects = try realm.dynamicObjects(throwing: "Conflict").filter(predicate, arguments: []).objects()
        let shown = Self.columns.dropFirst().map(\.name)
        if json {
            try out.write(objects.isEmpty ? "[]\n" : "[\n")
            for (i, o) in objects.enumerated() {
                let fields = try shown.map { "\"\($0)\": \(try o.jsonValue(forProperty: $0))" }
                try out.write("  {" + fields.joined(separator: ", ") + "}" + (i + 1 < objects.count ? ",\n" : "\n"))
            }
            if !objects.isEmpty { try out.write("]\n") }
        } else {
            let rows = try objects.map { o in try shown.map { try o.jsonValue(forProperty: $0) } }
            try out.write(TextTable.render(header: shown, rows: rows))
            try out.line("(\(objects.count) \(objects.count == 1 ? "conflict" : "conflicts"))")
        }
        try out.flush()
    }
}
