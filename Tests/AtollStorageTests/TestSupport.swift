import Foundation
@testable import AtollStorage
import AtollTestSupport


let dogSpec = TableSpec(name: "Dog", columns: [
    ColumnSpec(name: "id", type: .int),
    ColumnSpec(name: "name", type: .string, isIndexed: true),
    ColumnSpec(name: "age", type: .int, isNullable: true),
    ColumnSpec(name: "score", type: .double),
    ColumnSpec(name: "active", type: .bool),
], primaryKey: "id")
