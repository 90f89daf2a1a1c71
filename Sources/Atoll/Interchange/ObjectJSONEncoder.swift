import AtollStorage

/// Writes objects of one transaction as they read in data files (InterchangeValue.swift):
/// stored properties only (linking objects are computed), a link as its target's primary-key
/// value, or, when the target's class has no primary key, as the target object nested in place.
///
/// Nesting has no way to express a cycle: objects without a primary key that link to each
/// other in a cycle are an error, naming the class that needs a primary key.
final class ObjectJSONEncoder {
    enum Style {
        /// Members in key order, no white space (`{"a":1,"b":[1,2]}`).
        case canonical
        /// Members in declaration order, a space after `:` and `,` (`{"b": [1, 2], "a": 1}`).
        case readable
    }

    let transaction: Transaction
    let style: Style
    private var columnsCache: [TableKey: [(name: String, index: Int)]] = [:]
    /// Objects being written, to detect cycles through nested objects.
    private var path: [(TableKey, ObjectKey)] = []

    init(transaction: Transaction, style: Style) {
        self.transaction = transaction
        self.style = style
    }

    /// The printed properties of a table: user columns, in key order when canonical.
    func columns(of table: Table) -> [(name: String, index: Int)] {
        if let cached = columnsCache[table.key] { return cached }
        var columns = table.spec.columns.enumerated().filter { !DynamicSchema.isInternal($0.element.name) }.map { (name: $0.element.name, index: $0.offset) }
        if style == .canonical { columns.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) } }
        columnsCache[table.key] = columns
        return columns
    }

    func appendObject(_ table: Table, _ key: ObjectKey, to out: inout JSONOutput) throws {
        guard !path.contains(where: { $0 == (table.key, key) }) else {
            throw AtollError(.invalidArgument, "objects of class '\(table.name)' link to each other in a cycle and have no primary key to refer to each other by; give '\(table.name)' a primary key to write them as JSON")
        }
        // Nested objects are written recursively: as deep as import reads them, no deeper.
        guard path.count < InputLimits.objectNestingDepthMax else {
            throw AtollError(.limitExceeded, "objects of class '\(table.name)' are nested more than \(InputLimits.objectNestingDepthMax) levels deep through links without primary keys; give '\(table.name)' a primary key to write them as JSON")
        }
        path.append((table.key, key))
        defer { path.removeLast() }
        out.byte(UInt8(ascii: "{"))
        for (i, column) in columns(of: table).enumerated() {
            if i > 0 { style == .canonical ? out.byte(UInt8(ascii: ",")) : out.raw(", ") }
            out.string(column.name)
            style == .canonical ? out.byte(UInt8(ascii: ":")) : out.raw(": ")
            try appendValue(table, key, column: column.index, to: &out)
        }
        out.byte(UInt8(ascii: "}"))
    }

    /// One property's value.
    func appendValue(_ table: Table, _ key: ObjectKey, column c: Int, to out: inout JSONOutput) throws {
        let col = table.spec.columns[c]
        if col.isMap {
            // A map is a JSON object, its keys in sorted order (the stored order) in both styles.
            out.byte(UInt8(ascii: "{"))
            for (i, entry) in try table.mapEntries(key, c).enumerated() {
                if i > 0 { style == .canonical ? out.byte(UInt8(ascii: ",")) : out.raw(", ") }
                out.string(entry.key)
                style == .canonical ? out.byte(UInt8(ascii: ":")) : out.raw(": ")
                try appendElement(entry.value, column: col, to: &out)
            }
            out.byte(UInt8(ascii: "}"))
        } else if col.isList {
            // Lists in their order; sets in set order (stable, so canonical dumps compare).
            out.byte(UInt8(ascii: "["))
            for (i, v) in try table.listValues(key, c).enumerated() {
                if i > 0 { style == .canonical ? out.byte(UInt8(ascii: ",")) : out.raw(", ") }
                try appendElement(v, column: col, to: &out)
            }
            out.byte(UInt8(ascii: "]"))
        } else {
            try appendElement(try table.value(key, c), column: col, to: &out)
        }
    }

    private func appendElement(_ v: StorageValue, column col: ColumnSpec, to out: inout JSONOutput) throws {
        // A nested collection's elements may link objects: each is written as a mixed value is.
        switch v {
        case .mixedList(let l):
            out.byte(UInt8(ascii: "["))
            for (i, e) in l.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                try appendElement(e, column: col, to: &out)
            }
            out.byte(UInt8(ascii: "]"))
            return
        case .mixedMap(let m):
            out.byte(UInt8(ascii: "{"))
            for (i, k) in m.keys.sorted(by: StorageValue.mapKeyPrecedes).enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                out.string(k)
                out.byte(UInt8(ascii: ":"))
                try appendElement(m[k]!, column: col, to: &out)
            }
            out.byte(UInt8(ascii: "}"))
            return
        default: break
        }
        if case .typedLink(let t, let target) = v {
            // A mixed value's link names its class: {"$link":{"class":"Dog","pk":1}}, or the
            // object itself for a class without a primary key ("object").
            let targetTable = try transaction.table(t)
            out.raw("{\"$link\":{\"class\":")
            out.string(targetTable.name)
            if targetTable.spec.primaryKey != nil {
                out.raw(",\"pk\":")
                InterchangeValue.appendScalar(try targetTable.primaryKeyValue(target), to: &out)
            } else {
                out.raw(",\"object\":")
                try appendObject(targetTable, target, to: &out)
            }
            out.raw("}}")
            return
        }
        guard case .link(let target) = v else {
            if col.type == .mixed { InterchangeValue.appendMixed(v, to: &out) } else { InterchangeValue.appendScalar(v, to: &out) }
            return
        }
        guard let targetTable = try col.linkTarget.flatMap({ try transaction.table(named: $0) }) else {
            out.raw("null")
            return
        }
        if targetTable.spec.primaryKey != nil {
            InterchangeValue.appendScalar(try targetTable.primaryKeyValue(target), to: &out)
        } else {
            try appendObject(targetTable, target, to: &out)
        }
    }
}

extension DynamicObject {
    /// The object as JSON, as it reads in data files (linking objects left out). Readable:
    /// properties in declaration order, `{"id": 1, "name": "Rex"}`; canonical: keys sorted, no
    /// white space.
    public func json(canonical: Bool = false) throws -> String {
        try context.checkRead()
        var out = JSONOutput()
        try ObjectJSONEncoder(transaction: context.transaction, style: canonical ? .canonical : .readable).appendObject(try table, key, to: &out)
        return out.text
    }

    /// One property's value as JSON, as it reads in data files (`"Rex"`, `3`, `["a", "b"]`,
    /// a link as the target's primary key, `null`).
    public func jsonValue(forProperty property: String) throws -> String {
        try context.checkRead()
        let t = try table
        guard !DynamicSchema.isInternal(property), let c = t.columnIndex(named: property) else {
            throw AtollError(.invalidArgument, "'\(t.name)' has no stored property '\(property)'")
        }
        var out = JSONOutput()
        try ObjectJSONEncoder(transaction: context.transaction, style: .readable).appendValue(t, key, column: c, to: &out)
        return out.text
    }
}
