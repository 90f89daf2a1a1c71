import ArgumentParser
import Atoll

/// `atoll query DBPATH TYPE 'PREDICATE' [--arg JSON]... [--sort KEYPATH[:desc]]... [--limit N] [--json]`
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the objects of a class that match a predicate.",
        discussion: """
        Values print as in data files: a link as the target's primary-key value, a list as an array, \
        dates as ISO-8601 strings, data as base64, nil as null. Linking-objects properties are not \
        printed. With --json the output is a JSON array, one object per line; otherwise an aligned table.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @OptionGroup var query: QueryOptions

    @Option(help: ArgumentHelp("Sort by a key path, ascending, or descending with ':desc'. Repeat for ties.", valueName: "keypath[:desc]"))
    var sort: [String] = []

    @Option(help: "Print at most this many objects.")
    var limit: Int?

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
        for s in sort where Self.sortDescriptor(s) == nil {
            throw ValidationError("--sort '\(s)' is not KEYPATH, KEYPATH:asc or KEYPATH:desc")
        }
    }

    static func sortDescriptor(_ text: String) -> SortDescriptor? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let path = parts.first, !path.isEmpty, parts.count <= 2 else { return nil }
        switch parts.count == 2 ? parts[1].lowercased() : "asc" {
        case "asc": return SortDescriptor(keyPath: String(path), ascending: true)
        case "desc": return SortDescriptor(keyPath: String(path), ascending: false)
        default: return nil
        }
    }

    func run() throws {
        let out = Output()
        let realm = try DatabaseAccess.openRealm(dbpath, readOnly: true, key: try encryption.key())
        var results = try query.results(in: realm)
        let descriptors = sort.compactMap(Self.sortDescriptor)
        if !descriptors.isEmpty { results = try results.sorted(throwing: descriptors) }
        // Read through the throwing API: a damaged file is an error here, never an empty list.
        let objects = try results.objects(limit: limit ?? Int.max)
        if json {
            try out.write(objects.isEmpty ? "[]\n" : "[\n")
            for (i, o) in objects.enumerated() {
                try out.write("  " + (try o.json()) + (i + 1 < objects.count ? ",\n" : "\n"))
            }
            if !objects.isEmpty { try out.write("]\n") }
        } else {
            let columns = realm.dynamicSchema[className: results.className]?.properties.filter { !$0.isLinkingObjects }.map(\.name) ?? []
            let rows = try objects.map { o in try columns.map { try o.jsonValue(forProperty: $0) } }
            try out.write(TextTable.render(header: columns, rows: rows))
            try out.line("(\(objects.count) \(objects.count == 1 ? "object" : "objects"))")
        }
        try out.flush()
    }
}
