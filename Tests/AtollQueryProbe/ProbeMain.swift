// AtollQueryProbe: measures the heap allocations of query evaluation. It builds an in-memory
// table of N rows, runs each query once to warm up, then counts the allocations of a second
// run (CAllocationCounter interposes malloc in this executable only). Prints one line per
// query: allocations, matches, then the query.

import AtollQuery
import AtollStorage
import CAllocationCounter
import Foundation

@main
struct AtollQueryProbe {
    static let queries = [
        "i > 50",
        "i == 7 OR i == 9",
        "d < 0.5",
        "f >= 2",
        "b == true",
        "o == nil",
        "s == 'text 17'",
        "s BEGINSWITH 'text 1'",
        "s CONTAINS '99'",
        "t > 1970-01-02@00:00:00",
        "i > 10 AND NOT (d > 0.9 OR b == false)",
        "i BETWEEN {10, 20}",
        "i IN {1, 2, 3, 50}",
        "u == uuid(00000000-0000-0000-0000-000000000007)",
        "bin == B64\"AAE=\"",
        "next.i > 50",
        "next == nil",
        "ANY li > 90",
        "li.@count > 2",
        "li.@max > 90",
        "SUBQUERY(kids, $k, $k.i > 90).@count > 0",
        "ANY kids.i > 50",
        "kids.@avg.i > 50",
        "next.next.d < 0.2",
        "s > 'text 5'",
        "s IN {'text 1', 'text 2'}",
        "o IN {nil, 5}",
        "t BETWEEN {1970-01-01@00:00:00, 1970-01-02@00:00:00}",
        "bin BEGINSWITH B64\"AQ==\"",
        // Allocate per row in unoptimized builds only (generic matching over folded bytes).
        "s ==[c] 'TEXT 5'",
        "s LIKE '*7?'",
        // Allocates per object: backlinks are read into an array through a B+tree cursor.
        "owners.@count > 0",
    ]

    static func main() throws {
        let rows = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "probe"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(TableSpec(name: "R", columns: [
            ColumnSpec(name: "i", type: .int),
            ColumnSpec(name: "d", type: .double),
            ColumnSpec(name: "f", type: .float),
            ColumnSpec(name: "b", type: .bool),
            ColumnSpec(name: "o", type: .int, isNullable: true),
            ColumnSpec(name: "s", type: .string),
            ColumnSpec(name: "t", type: .timestamp),
            ColumnSpec(name: "u", type: .uuid),
            ColumnSpec(name: "bin", type: .binary),
            ColumnSpec(name: "next", type: .link, isNullable: true, linkTarget: "R"),
            ColumnSpec(name: "li", type: .int, isList: true),
            ColumnSpec(name: "kids", type: .link, isList: true, linkTarget: "R"),
        ], linkingObjects: [LinkingObjectsSpec(name: "owners", originTable: "R", originProperty: "kids")])))
        var keys: [ObjectKey] = []
        for n in 0..<rows {
            let k = try t.create()
            keys.append(k)
            try t.set(k, 0, .int(Int64(n % 100)))
            try t.set(k, 1, .double(Double(n % 10) / 10))
            try t.set(k, 2, .float(Float(n % 4)))
            try t.set(k, 3, .bool(n % 3 == 0))
            try t.set(k, 4, n % 5 == 0 ? .null : .int(Int64(n)))
            try t.set(k, 5, .string("text \(n % 1000)"))
            try t.set(k, 6, .timestamp(Timestamp(seconds: Int64(n * 60), nanoseconds: 0)))
            try t.set(k, 7, .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(n % 256)))))
            try t.set(k, 8, .binary([UInt8(n % 2), UInt8(n % 7)]))
            try t.setList(k, 10, (0..<(n % 4)).map { .int(Int64((n + $0 * 37) % 100)) })
        }
        for (n, k) in keys.enumerated() {
            if n % 4 != 0 { try t.set(k, 9, .link(keys[(n * 7 + 1) % rows])) }
            if n % 10 == 0 { try t.setList(k, 11, [.link(keys[(n + 1) % rows]), .link(keys[(n + 2) % rows])]) }
        }
        try w.commit()

        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        var leaves = 0
        try r.table(named: "R")?.forEachLeaf { _ in leaves += 1; return true }
        print("rows \(rows) leaves \(leaves)")
        guard atoll_allocations_available() != 0 else {
            FileHandle.standardError.write(Data("AtollQueryProbe: allocations cannot be counted in a sanitizer build\n".utf8))
            exit(2)
        }
        let only = ProcessInfo.processInfo.environment["ATOLL_PROBE_QUERY"]
        for q in queries where only == nil || only == q {
            let bound = try engine.bind(q, on: "R")
            _ = try engine.run(bound)
            atoll_allocations_start()
            let matches = try engine.run(bound).count
            let allocations = atoll_allocations_stop()
            print("\(allocations)\t\(matches)\t\(q)")
        }
        fflush(nil)
    }
}
