import Foundation
@testable import AtollStorage

/// A fresh directory under the system temp dir, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "atoll-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

let dogSpec = TableSpec(name: "Dog", columns: [
    ColumnSpec(name: "id", type: .int),
    ColumnSpec(name: "name", type: .string, isIndexed: true),
    ColumnSpec(name: "age", type: .int, isNullable: true),
    ColumnSpec(name: "score", type: .double),
    ColumnSpec(name: "active", type: .bool),
], primaryKey: "id")
