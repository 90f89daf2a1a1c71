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
        'delete overridden', 'concurrent list element write', 'concurrent map entry write'), \
        className, primaryKey, property, element, mapKey, winningValue, losingValue (values as text; null for a delete), winningNode, \
        losingNode, winningStamp, losingStamp, decidedInVersion (the local commit that decided it) \
        and recordedAt (milliseconds since 1970), and the predicate may use any of them, e.g. \
        "className == 'Task' AND property == 'title'" (the same properties as realm.conflicts in \
        Swift). Entries print in the order of the losing \
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

    func run() throws {
        let out = Output()
        let database = try DatabaseAccess.openDatabase(dbpath, key: try encryption.key())
        let conflicts = try Conflict.all(in: database)
        // The query language runs over tables: the entries become objects of an in-memory realm.
        let identifier = "atoll-conflicts-\(UUID().uuidString)"
        let memory = try Database.open(DatabaseConfiguration(inMemoryIdentifier: identifier))
        let w = try memory.beginWrite()
        do {
            let t = try w.table(try w.createTable(TableSpec(name: ConflictTable.className, columns: ConflictTable.columns)))
            for c in conflicts { try t.create(values: ConflictTable.row(c)) }
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
        var configuration = Realm.Configuration(inMemoryIdentifier: identifier)
        configuration.objectTypes = []
        let realm = try Realm(configuration: configuration, dynamicSchema: nil)
        let objects = try realm.dynamicObjects(throwing: ConflictTable.className).filter(predicate, arguments: []).objects()
        let shown = ConflictTable.columns.map(\.name)
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
