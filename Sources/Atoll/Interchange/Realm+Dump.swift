import Foundation
import AtollStorage

extension Realm {
    /// Writes every object of every class as JSON in the shape of a data file,
    /// `{"Class": [objects...]}`, which ``importObjects(_:update:progress:)`` reads back.
    ///
    /// Values print as `ObjectJSONEncoder` writes them (InterchangeValue.swift): links as the
    /// target's primary-key value, dates as ISO-8601 strings, data as base64, NaN and the
    /// infinities as the strings "NaN", "Infinity", "-Infinity". Objects of a class without a
    /// primary key that other objects link to are written nested in those objects, not at the
    /// top level.
    ///
    /// - `canonical: false`: classes by name, objects in storage order, properties in
    ///   declaration order, one object per line.
    /// - `canonical: true`: classes by name, objects by primary key (classes without one: by
    ///   their canonical text), keys sorted in every object (UTF-8 byte order), no white space
    ///   but the final newline. Two databases with equal contents give byte-identical dumps.
    ///
    /// Reads the realm's current version, so the dump is one consistent snapshot.
    public func dumpJSON(canonical: Bool = false, to sink: @escaping ([UInt8]) throws -> Void) throws {
        try checkThread()
        var out = JSONOutput(sink: sink)
        try DatabaseDump(transaction: transaction, canonical: canonical).write(to: &out)
        try out.flush()
    }

    /// ``dumpJSON(canonical:to:)`` as a string.
    public func dumpJSON(canonical: Bool = false) throws -> String {
        var bytes: [UInt8] = []
        try dumpJSON(canonical: canonical) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

struct DatabaseDump {
    let transaction: Transaction
    let canonical: Bool

    func write(to out: inout JSONOutput) throws {
        let encoder = ObjectJSONEncoder(transaction: transaction, style: canonical ? .canonical : .readable)
        let schema = DynamicSchema(transaction: transaction)
        out.byte(UInt8(ascii: "{"))
        for (ci, c) in schema.classes.enumerated() {
            guard let table = try transaction.table(named: c.name) else { continue }
            if canonical {
                if ci > 0 { out.byte(UInt8(ascii: ",")) }
            } else {
                out.raw(ci > 0 ? ",\n  " : "\n  ")
            }
            out.string(c.name)
            out.raw(canonical ? ":[" : ": [")
            var first = true
            func separate(_ out: inout JSONOutput) {
                if canonical {
                    if !first { out.byte(UInt8(ascii: ",")) }
                } else {
                    out.raw(first ? "\n    " : ",\n    ")
                }
                first = false
            }
            if table.spec.primaryKey != nil {
                for key in try orderedKeys(table) {
                    separate(&out)
                    try encoder.appendObject(table, key, to: &out)
                    try out.flushIfFull()
                }
            } else {
                // Objects other objects link to are written nested in them.
                let roots = try table.objectKeys().filter { try table.backlinkCount(to: $0) == 0 }
                if canonical {
                    var texts: [[UInt8]] = []
                    for key in roots {
                        var one = JSONOutput()
                        try encoder.appendObject(table, key, to: &one)
                        texts.append(one.buffer)
                    }
                    texts.sort { $0.lexicographicallyPrecedes($1) }
                    for text in texts {
                        separate(&out)
                        out.append(text)
                        try out.flushIfFull()
                    }
                } else {
                    for key in roots {
                        separate(&out)
                        try encoder.appendObject(table, key, to: &out)
                        try out.flushIfFull()
                    }
                }
            }
            if !canonical && !first { out.raw("\n  ") }
            out.byte(UInt8(ascii: "]"))
        }
        if !canonical && !schema.classes.isEmpty { out.byte(UInt8(ascii: "\n")) }
        out.raw("}\n")
    }

    /// The objects of a class with a primary key: by primary key when canonical, else in
    /// storage order. (Int primary keys are the object keys, so both orders agree for them.)
    private func orderedKeys(_ table: Table) throws -> [ObjectKey] {
        let keys = try table.objectKeys()
        guard canonical, !table.spec.keyIsPrimaryKey else { return keys }
        var pairs = try keys.map { (key: $0, pk: try table.primaryKeyValue($0)) }
        pairs.sort { PrimaryKeyOrder.less($0.pk, $1.pk) }
        return pairs.map(\.key)
    }
}

/// A total order of primary-key values for canonical output: nil first, then numbers, strings
/// by UTF-8 bytes, UUIDs and ObjectIds by their bytes.
enum PrimaryKeyOrder {
    static func less(_ a: StorageValue, _ b: StorageValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        case (.int(let x), .int(let y)): return x < y
        case (.string(let x), .string(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
        case (.uuid(let x), .uuid(let y)):
            return withUnsafeBytes(of: x.uuid) { xb in withUnsafeBytes(of: y.uuid) { yb in xb.lexicographicallyPrecedes(yb) } }
        case (.objectId(let x), .objectId(let y)): return x < y
        case (.decimal128(let x), .decimal128(let y)): return x < y
        default: return a.description < b.description
        }
    }
}
