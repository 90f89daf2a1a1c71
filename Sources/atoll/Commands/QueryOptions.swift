import ArgumentParser
import Atoll

/// The class, predicate and arguments shared by `query`, `delete` and `watch`.
struct QueryOptions: ParsableArguments {
    @Argument(help: "The class to query.")
    var type: String

    @Argument(help: "A predicate in Realm's query language, e.g. \"age > $0 AND name BEGINSWITH[c] 'r'\".")
    var predicate: String = "TRUEPREDICATE"

    // Unconditional: a value may begin with '-' (`--arg -5`).
    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A query argument as JSON, for $0, $1, ... in order. Dates are {\"$date\": \"ISO-8601\"}, data is {\"$data\": \"base64\"}; a link is compared with the target's primary-key value; an array is a collection (IN $0).",
        valueName: "json"))
    var arguments: [String] = []

    /// The matching objects of `realm`.
    func results(in realm: Realm) throws -> DynamicResults {
        let values = try arguments.enumerated().map { i, text in
            try QueryArgumentJSON.argument(fromJSON: text, sourceName: "--arg $\(i)")
        }
        return try realm.dynamicObjects(throwing: type).filter(predicate, arguments: values)
    }
}
