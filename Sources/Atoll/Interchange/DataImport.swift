import AtollStorage
import AtollQuery

/// A parsed data file, `{"Class": [objects...], ...}`, ready for ``Realm/importObjects(_:update:progress:)``.
///
/// Parsing checks the JSON and the file's shape; the classes, properties and values are
/// checked against the realm when importing. Errors name the file, line and column.
public struct ImportDocument {
    let source: JSONSource
    let classes: [(name: String, nameOffset: Int, objects: [JSONNode])]
    /// The number of top-level objects.
    public let objectCount: Int

    /// Parses a data file.
    ///
    /// - Parameters:
    ///   - jsonBytes: the data file's bytes (UTF-8 JSON).
    ///   - sourceName: the file name used in error messages.
    ///   - progress: called with the number of bytes parsed so far, about every megabyte.
    /// - Throws: `.invalidInput` naming the position of the problem.
    public init(jsonBytes: [UInt8], sourceName: String = "data", progress: ((Int) -> Void)? = nil) throws {
        source = JSONSource(name: sourceName, bytes: jsonBytes)
        let root = try JSONParser.parse(source, progress: progress)
        guard let members = root.members else {
            throw source.error(.invalidInput, at: root.offset, "a data file is a JSON object mapping class names to arrays of objects, such as {\"Dog\": [{\"name\": \"Rex\"}]}, not \(root.typeName)")
        }
        var classes: [(String, Int, [JSONNode])] = []
        var count = 0
        for m in members {
            guard case .array(let objects) = m.value.value else {
                throw source.error(.invalidInput, at: m.value.offset, "\"\(m.key)\" must map to an array of objects, not \(m.value.typeName)")
            }
            classes.append((m.key, m.keyOffset, objects))
            count += objects.count
        }
        self.classes = classes
        objectCount = count
    }
}

/// How far an import has got.
public struct ImportProgress: Sendable {
    /// The stage an import is in.
    public enum Phase: Sendable {
        /// Creating (or updating) objects and setting their values; `total` is the number of
        /// top-level objects.
        case creating
        /// Setting the links given as primary keys, once every object exists.
        case linking
    }

    /// The current stage.
    public var phase: Phase
    /// Objects (or links) done in this stage.
    public var completed: Int
    /// Objects (or links) this stage has in all.
    public var total: Int
}

/// What an import did.
public struct ImportSummary: Sendable {
    /// Objects created (nested ones included).
    public var created = 0
    /// Existing objects updated (`.modified`/`.all`).
    public var updated = 0

    /// A summary with these counts.
    public init(created: Int = 0, updated: Int = 0) {
        self.created = created
        self.updated = updated
    }
}

extension Realm {
    /// Imports the objects of a data file, inside a write transaction (so a failure leaves the
    /// database as it was: the write throws and nothing is committed).
    ///
    /// - A link is a nested object (created, as `create(_:value:)` does) or the primary-key
    ///   value of an object that exists or appears anywhere in the file, in any class and any
    ///   order: every object is created first and links are set after, so an object may link to
    ///   itself or to an object it is nested in.
    /// - Values as in InterchangeValue.swift (ISO-8601 dates with up to 9 fractional digits,
    ///   base64 data, "NaN"/"Infinity"/"-Infinity").
    /// - `update`: `.error` (an existing primary key is an error); `.modified` or `.all`
    ///   update the existing object as `add(_:update:)` does (`.modified` writes only the values
    ///   that differ), keeping the properties the file does not give. Objects of classes
    ///   without a primary key are always created.
    /// - A new object must be given every required property; optional ones default to nil
    ///   and lists to empty. Unknown classes and properties are errors.
    public func importObjects(_ document: ImportDocument, update: UpdatePolicy = .error,
                              progress: ((ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        try DynamicContext(realm: self).checkWrite()
        guard let w = writeTransaction else { throw AtollError(.invalidTransaction, "importObjects needs a write transaction") }
        var importer = DataImporter(source: document.source, transaction: w, update: update, progress: progress, total: document.objectCount)
        do {
            try importer.run(document)
        } catch let e as AtollError {
            recordError(e)
            throw e
        }
        return importer.summary
    }
}

/// Imports a data file in two passes: objects and values first, then links by primary key.
struct DataImporter {
    let source: JSONSource
    let transaction: WriteTransaction
    let update: Realm.UpdatePolicy
    let progress: ((ImportProgress) -> Void)?
    let total: Int
    private(set) var summary = ImportSummary()

    /// Objects created for nested JSON objects, by the offset of their node.
    private var nested: [Int: ObjectKey] = [:]
    private var pending: [PendingLink] = []
    private var topLevelDone = 0
    /// Nested objects waiting to be imported (after the object they are nested in): nesting is
    /// followed with this list, not by recursion, so the stack does not grow with it.
    private var nestedToImport: [(node: JSONNode, table: Table, depth: Int)] = []

    private struct PendingLink {
        let table: Table
        let key: ObjectKey
        let column: Int
        let node: JSONNode
        let onlyIfChanged: Bool
    }

    init(source: JSONSource, transaction: WriteTransaction, update: Realm.UpdatePolicy, progress: ((ImportProgress) -> Void)?, total: Int) {
        self.source = source
        self.transaction = transaction
        self.update = update
        self.progress = progress
        self.total = total
    }

    private func fail(_ offset: Int, _ kind: AtollError.Kind, _ message: String) -> AtollError {
        source.error(kind, at: offset, message)
    }

    private func fail(_ offset: Int, _ message: String) -> AtollError {
        source.error(.invalidInput, at: offset, message)
    }

    mutating func run(_ document: ImportDocument) throws {
        var tables: [Table] = []
        for c in document.classes {
            guard !DynamicSchema.isInternal(c.name), let t = try transaction.table(named: c.name) else {
                let names = transaction.tableSpecs.map(\.name).filter { !DynamicSchema.isInternal($0) }
                let suggestion = NameSuggestion.closest(to: c.name, among: names).map { "; did you mean '\($0)'?" } ?? ""
                throw fail(c.nameOffset, "unknown class '\(c.name)'\(suggestion) (the schema has \(names.isEmpty ? "no classes" : names.sorted().joined(separator: ", ")))")
            }
            tables.append(t)
        }
        let step = max(1, total / 200)
        for (c, table) in zip(document.classes, tables) {
            if table.spec.isEmbedded, let node = c.objects.first {
                throw fail(node.offset, "'\(c.name)' is an embedded class: its objects cannot be imported on their own; give each one inline, as the value of its parent's property")
            }
            for node in c.objects {
                _ = try importObject(node, table: table, depth: 1)
                while let next = nestedToImport.popLast() {
                    nested[next.node.offset] = try importObject(next.node, table: next.table, depth: next.depth)
                }
                topLevelDone += 1
                if topLevelDone % step == 0 { progress?(ImportProgress(phase: .creating, completed: topLevelDone, total: total)) }
            }
        }
        progress?(ImportProgress(phase: .creating, completed: total, total: total))
        let links = pending
        pending = []
        let linkStep = max(1, links.count / 200)
        for (i, link) in links.enumerated() {
            try setLink(link)
            if (i + 1) % linkStep == 0 { progress?(ImportProgress(phase: .linking, completed: i + 1, total: links.count)) }
        }
    }

    /// Creates or updates one object from a JSON object, `depth` levels deep in the nesting of
    /// its top-level object; its nested objects are queued (`nestedToImport`), and links are
    /// left for the second pass.
    private mutating func importObject(_ node: JSONNode, table: Table, depth: Int) throws -> ObjectKey {
        let spec = table.spec
        guard depth <= InputLimits.objectNestingDepthMax else {
            throw fail(node.offset, .limitExceeded, InputLimits.objectNestingExceeded(spec.name).message)
        }
        guard let members = node.members else {
            throw fail(node.offset, "each '\(spec.name)' must be a JSON object, not \(node.typeName)")
        }
        var columns: [Int] = []
        columns.reserveCapacity(members.count)
        var pkNode: JSONNode?
        for m in members {
            guard !DynamicSchema.isInternal(m.key), let c = spec.columnIndex(named: m.key) else {
                if spec.linkingObjects.contains(where: { $0.name == m.key }) {
                    throw fail(m.keyOffset, "'\(spec.name).\(m.key)' is a linking objects property; it is computed from the links and cannot be imported")
                }
                let names = spec.columns.map(\.name).filter { !DynamicSchema.isInternal($0) }
                let suggestion = NameSuggestion.closest(to: m.key, among: names).map { "; did you mean '\($0)'?" } ?? ""
                throw fail(m.keyOffset, "'\(spec.name)' has no property '\(m.key)'\(suggestion)")
            }
            columns.append(c)
            if c == spec.primaryKeyIndex { pkNode = m.value }
        }
        var primaryKey: StorageValue?
        if let pk = spec.primaryKeyIndex {
            guard let pkNode else {
                throw fail(node.offset, .primaryKeyMissing, "this '\(spec.name)' has no value for its primary key '\(spec.columns[pk].name)'")
            }
            primaryKey = try scalar(pkNode, table: table, column: pk)
        }
        let key: ObjectKey, isNew: Bool
        do {
            (key, isNew) = try DynamicWriter.row(in: table, primaryKey: primaryKey, update: update)
        } catch let e as AtollError {
            throw fail(pkNode?.offset ?? node.offset, e.kind, e.message)
        }
        if isNew { summary.created += 1 } else { summary.updated += 1 }
        let onlyIfChanged = !isNew && update == .modified
        // Nested objects, in file order: imported next, before what follows this object.
        var children: [(node: JSONNode, table: Table)] = []
        for (m, c) in zip(members, columns) where c != spec.primaryKeyIndex {
            let col = spec.columns[c]
            let where_ = "'\(spec.name).\(col.name)'"
            if col.type == .link {
                // Nested objects are created now; every link is set in the second pass.
                if col.isMap {
                    guard case .object(let entries) = m.value.value else {
                        if m.value.isNull { pending.append(PendingLink(table: table, key: key, column: c, node: m.value, onlyIfChanged: onlyIfChanged)); continue }
                        throw fail(m.value.offset, .typeMismatch, "\(where_) is a map of '\(col.linkTarget ?? "")' objects; expected an object, found \(m.value.typeName)")
                    }
                    for e in entries where e.value.members != nil { children.append((e.value, try linkTarget(col, spec))) }
                } else if col.isList {
                    guard case .array(let elements) = m.value.value else {
                        if m.value.isNull { pending.append(PendingLink(table: table, key: key, column: c, node: m.value, onlyIfChanged: onlyIfChanged)); continue }
                        throw fail(m.value.offset, .typeMismatch, "\(where_) is a list of '\(col.linkTarget ?? "")' objects; expected an array, found \(m.value.typeName)")
                    }
                    for e in elements where e.members != nil { children.append((e, try linkTarget(col, spec))) }
                } else if m.value.members != nil {
                    children.append((m.value, try linkTarget(col, spec)))
                }
                pending.append(PendingLink(table: table, key: key, column: c, node: m.value, onlyIfChanged: onlyIfChanged))
                continue
            }
            do {
                if col.isMap {
                    let entries: [(key: String, value: StorageValue)]
                    switch m.value.value {
                    case .null: entries = []
                    case .object(let members): entries = try members.map { e in
                        do { try MapKeyRules.validate(e.key) } catch let error as AtollError { throw fail(e.keyOffset, error.kind, "\(where_): \(error.message)") }
                        return (key: e.key, value: try scalar(e.value, table: table, column: c))
                    }
                    default: throw fail(m.value.offset, .typeMismatch, "\(where_) is a map of \(col.type); expected an object, found \(m.value.typeName)")
                    }
                    if onlyIfChanged, try table.mapEntries(key, c).elementsEqual(entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }, by: { $0.key == $1.key && $0.value == $1.value }) { continue }
                    try table.mapAssign(key, c, entries)
                } else if col.isList {
                    let values: [StorageValue]
                    switch m.value.value {
                    case .null: values = []
                    case .array(let elements): values = try elements.map { try scalar($0, table: table, column: c) }
                    default: throw fail(m.value.offset, .typeMismatch, "\(where_) is a list of \(col.type); expected an array, found \(m.value.typeName)")
                    }
                    if col.isSet {
                        if onlyIfChanged, try table.listValues(key, c) == SortedSearch.sortedUnique(values) { continue }
                        try table.setAssign(key, c, values)
                    } else {
                        if onlyIfChanged, try table.listValues(key, c) == values { continue }
                        try table.setList(key, c, values)
                    }
                } else if let counter = m.value.members, counter.count == 1, counter[0].key == "$inc" {
                    try increment(counter[0].value, table: table, key: key, column: c, isNew: isNew)
                } else {
                    let value = try scalar(m.value, table: table, column: c)
                    if onlyIfChanged, try table.value(key, c) == value { continue }
                    try table.set(key, c, value)
                }
            } catch let e as AtollError where !e.message.hasPrefix(source.name + ":") {
                throw fail(m.value.offset, e.kind, "\(where_): \(e.message)")
            }
        }
        if isNew {
            for (c, col) in spec.columns.enumerated() where !col.isNullable && !col.isList && col.type != .link && c != spec.primaryKeyIndex && !columns.contains(c) {
                throw fail(node.offset, .requiredValueMissing, "this new '\(spec.name)' has no value for its required property '\(col.name)'")
            }
        }
        // Popped last first: the first child is imported next, then its own nested objects.
        for child in children.reversed() { nestedToImport.append((child.node, child.table, depth + 1)) }
        return key
    }

    /// `{"$inc": n}`: adds n to an integer property as a counter (Table.addInteger), so that
    /// increments imported on different synced nodes all count. On a new object it starts at 0.
    private func increment(_ node: JSONNode, table: Table, key: ObjectKey, column c: Int, isNew: Bool) throws {
        let col = table.spec.columns[c]
        guard col.type == .int else {
            throw fail(node.offset, .typeMismatch, "'\(table.name).\(col.name)' is \(col.type); {\"$inc\": n} applies only to integer properties")
        }
        guard case .number(let text) = node.value, let delta = Int64(text) else {
            throw fail(node.offset, .typeMismatch, "{\"$inc\": n} needs an integer n, found \(node.typeName)")
        }
        if isNew, try table.value(key, c).isNull { try table.set(key, c, .int(0)) }
        try table.addInteger(key, c, delta)
    }

    private func linkTarget(_ col: ColumnSpec, _ spec: TableSpec) throws -> Table {
        guard let name = col.linkTarget, let t = try transaction.table(named: name) else {
            throw AtollError(.schemaMismatch, "'\(spec.name).\(col.name)' links to '\(col.linkTarget ?? "")', which does not exist")
        }
        return t
    }

    /// A scalar (or list element) for column `c` of `table`.
    private func scalar(_ node: JSONNode, table: Table, column c: Int) throws -> StorageValue {
        let col = table.spec.columns[c]
        switch InterchangeValue.scalar(node, type: col.type, intBits: col.intBits) {
        case .success(let v):
            if v.isNull && !col.isNullable {
                throw fail(node.offset, .requiredValueMissing, "'\(table.name).\(col.name)' is required\(col.isList ? " (its elements cannot be null)" : ""); null is not allowed")
            }
            return v
        case .failure(let m):
            throw fail(node.offset, .typeMismatch, "'\(table.name).\(col.name)' is \(DynamicProperty.typeString(of: col)): \(m.message)")
        }
    }

    // MARK: links

    private mutating func setLink(_ link: PendingLink) throws {
        let col = link.table.spec.columns[link.column]
        let target = try linkTarget(col, link.table.spec)
        if col.isMap {
            var entries: [(key: String, value: StorageValue)] = []
            if case .object(let members) = link.node.value {
                for e in members {
                    do { try MapKeyRules.validate(e.key) } catch let error as AtollError { throw fail(e.keyOffset, error.kind, "'\(link.table.name).\(col.name)': \(error.message)") }
                    entries.append((key: e.key, value: e.value.isNull ? .null : .link(try resolve(e.value, target: target, from: link.table, column: col))))
                }
            }
            if link.onlyIfChanged,
               try link.table.mapEntries(link.key, link.column).elementsEqual(entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }, by: { $0.key == $1.key && $0.value == $1.value }) {
                return
            }
            try link.table.mapAssign(link.key, link.column, entries)
        } else if col.isList {
            var keys: [StorageValue] = []
            if case .array(let elements) = link.node.value {
                keys.reserveCapacity(elements.count)
                for e in elements {
                    guard !e.isNull else {
                        throw fail(e.offset, .requiredValueMissing, "'\(link.table.name).\(col.name)' is a \(col.isSet ? "set" : "list") of objects; it cannot hold null")
                    }
                    keys.append(.link(try resolve(e, target: target, from: link.table, column: col)))
                }
            }
            if col.isSet {
                if link.onlyIfChanged, try link.table.listValues(link.key, link.column) == SortedSearch.sortedUnique(keys) { return }
                try link.table.setAssign(link.key, link.column, keys)
            } else {
                if link.onlyIfChanged, try link.table.listValues(link.key, link.column) == keys { return }
                try link.table.setList(link.key, link.column, keys)
            }
        } else {
            let value: StorageValue = link.node.isNull ? .null : .link(try resolve(link.node, target: target, from: link.table, column: col))
            if link.onlyIfChanged, try link.table.value(link.key, link.column) == value { return }
            try link.table.set(link.key, link.column, value)
        }
    }

    /// The object a link value names: a nested object created in the first pass, or the object
    /// with that primary key.
    private func resolve(_ node: JSONNode, target: Table, from table: Table, column col: ColumnSpec) throws -> ObjectKey {
        let where_ = "'\(table.name).\(col.name)'"
        if node.members != nil {
            guard let key = nested[node.offset] else { throw fail(node.offset, "\(where_): the nested object was not created") }
            return key
        }
        guard let pk = target.spec.primaryKeyIndex else {
            throw fail(node.offset, .typeMismatch, "\(where_) links to '\(target.name)', which has no primary key; give the linked object itself, nested, instead of \(node.typeName)")
        }
        let value: StorageValue
        switch InterchangeValue.scalar(node, type: target.spec.columns[pk].type, intBits: target.spec.columns[pk].intBits) {
        case .success(let v): value = v
        case .failure(let m):
            throw fail(node.offset, .typeMismatch, "\(where_) links to '\(target.name)': give a nested object or the primary-key value (\(DynamicProperty.typeString(of: target.spec.columns[pk]))) of an object; \(m.message)")
        }
        guard let found = try target.find(primaryKey: value) else {
            throw fail(node.offset, .objectNotFound, "\(where_): no '\(target.name)' object has primary key \(InterchangeText.describe(value)), neither in the database nor in this file")
        }
        return found
    }
}

extension DynamicProperty {
    /// The realm-js type string of a stored column.
    static func typeString(of col: ColumnSpec) -> String {
        DynamicProperty(name: col.name, type: DynamicPropertyType(col), isOptional: col.type == .link ? !col.isList || col.isMap : col.isNullable,
                        isList: col.isList && !col.isSet && !col.isMap, isSet: col.isSet, isMap: col.isMap).typeString
    }
}
