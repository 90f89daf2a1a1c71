import Foundation
import AtollStorage
import AtollQuery

/// Stored values as the Swift values the dynamic API returns.
enum DynamicValues {
    /// A stored scalar as a Swift value (links are resolved by the caller).
    static func swiftValue(_ v: StorageValue) -> Any? {
        switch v {
        // Links are made objects by the callers, which know their targets.
        case .null, .link, .typedLink: nil
        case .bool(let b): b
        case .int(let i): Int(truncatingIfNeeded: i)
        case .float(let f): f
        case .double(let d): d
        case .string(let s): s
        case .binary(let b): Data(b)
        case .timestamp(let t): Date(t)
        case .uuid(let u): u
        case .objectId(let o): o
        case .decimal128(let d): d
        // Nested collections (a mixed value's): arrays and dictionaries of the same.
        case .mixedList(let l): l.map(swiftValue)
        case .mixedMap(let m): m.mapValues(swiftValue)
        }
    }

    /// The stored value of a scalar column from a Swift value, with errors naming the property.
    static func scalar(_ value: Any?, column col: ColumnSpec, className: String) throws -> StorageValue {
        guard let value = flattenOptional(value) else {
            guard col.isNullable else {
                throw AtollError(.requiredValueMissing, "property '\(className).\(col.name)' is required; nil is not allowed")
            }
            return .null
        }
        guard let v = ValueConversion.scalar(value, type: col.type) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for \(col.type) property '\(className).\(col.name)'")
        }
        try checkRange(v, column: col, className: className)
        return v
    }

    static func checkRange(_ v: StorageValue, column col: ColumnSpec, className: String) throws {
        if case .int(let i) = v, col.intBits < 64 {
            let lo = -(Int64(1) << (col.intBits - 1)), hi = (Int64(1) << (col.intBits - 1)) - 1
            guard i >= lo && i <= hi else {
                throw AtollError(.typeMismatch, "\(i) does not fit the \(col.intBits)-bit property '\(className).\(col.name)'")
            }
        }
    }
}

/// Writes dynamic values (dictionaries, arrays, `DynamicObject`s, primary keys) to tables:
/// `Realm.dynamicCreate`, `DynamicObject.setValue` and migrations.
struct DynamicWriter {
    let context: DynamicContext
    let update: Realm.UpdatePolicy
    /// Objects being created, one inside another (`InputLimits.objectNestingDepthMax`).
    private var nestingDepth = 0

    init(context: DynamicContext, update: Realm.UpdatePolicy) {
        self.context = context
        self.update = update
    }

    var transaction: Transaction { context.transaction }

    /// The object to write for `primaryKey`: with `.error`, a new one (failing when the key
    /// exists); with `.modified`/`.all`, the existing one if there is one. Classes without a
    /// primary key always get a new object. Returns the key and whether it is new.
    static func row(in table: Table, primaryKey: StorageValue?, update: Realm.UpdatePolicy) throws -> (key: ObjectKey, isNew: Bool) {
        guard table.spec.primaryKey != nil, let primaryKey else { return (try table.create(), true) }
        if update == .error {
            do {
                return (try table.create(primaryKey: primaryKey), true)
            } catch let e as AtollError where e.kind == .primaryKeyExists {
                throw AtollError(.primaryKeyExists, "an object of class '\(table.name)' with primary key \(InterchangeText.describe(primaryKey)) already exists")
            }
        }
        if let existing = try table.find(primaryKey: primaryKey) { return (existing, false) }
        return (try table.create(primaryKey: primaryKey), true)
    }

    /// Creates (or, with an update policy and an existing primary key, updates) an object of
    /// `table` from property values. Properties not given keep their value on an update; on a
    /// new object, optional ones are nil and lists empty, and required ones are an error.
    mutating func create(in table: Table, values: [String: Any?]) throws -> ObjectKey {
        let spec = table.spec
        nestingDepth += 1
        defer { nestingDepth -= 1 }
        guard nestingDepth <= InputLimits.objectNestingDepthMax else { throw InputLimits.objectNestingExceeded(spec.name) }
        for name in values.keys where spec.columnIndex(named: name) == nil || DynamicSchema.isInternal(name) {
            let isLinking = spec.linkingObjects.contains { $0.name == name }
            let suggestion = NameSuggestion.closest(to: name, among: spec.columns.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
            throw AtollError(.invalidArgument, isLinking ? "'\(spec.name).\(name)' is a linking objects property; it is computed and cannot be set"
                                                         : "'\(spec.name)' has no property '\(name)'\(suggestion)")
        }
        var primaryKey: StorageValue?
        if let pk = spec.primaryKeyIndex {
            guard let given = values[spec.columns[pk].name] else {
                throw AtollError(.primaryKeyMissing, "a '\(spec.name)' needs a value for its primary key '\(spec.columns[pk].name)'")
            }
            primaryKey = try DynamicValues.scalar(given, column: spec.columns[pk], className: spec.name)
        }
        let (key, isNew) = try Self.row(in: table, primaryKey: primaryKey, update: update)
        for (c, col) in spec.columns.enumerated() where c != spec.primaryKeyIndex && !DynamicSchema.isInternal(col.name) {
            if let given = values[col.name] {
                try set(given, table: table, key: key, column: c, onlyIfChanged: !isNew && update == .modified)
            } else if isNew && !col.isNullable && !col.isList && col.type != .link {
                throw AtollError(.requiredValueMissing, "a new '\(spec.name)' needs a value for its required property '\(col.name)'")
            }
        }
        return key
    }

    /// Sets one column of an object from a dynamic value.
    mutating func set(_ value: Any?, table: Table, key: ObjectKey, column c: Int, onlyIfChanged: Bool) throws {
        let col = table.spec.columns[c]
        if col.isMap {
            let entries = try mapEntries(value, column: col, className: table.name)
            if onlyIfChanged, try table.mapEntries(key, c).elementsEqual(entries, by: { $0.key == $1.key && $0.value == $1.value }) { return }
            try table.mapAssign(key, c, entries)
            return
        }
        if col.isSet {
            let values = try listValues(value, column: col, className: table.name)
            if onlyIfChanged, try table.listValues(key, c) == SortedSearch.sortedUnique(values) { return }
            try table.setAssign(key, c, values)
            return
        }
        if col.isList {
            let values = try listValues(value, column: col, className: table.name)
            if onlyIfChanged, try table.listValues(key, c) == values { return }
            try table.setList(key, c, values)
            return
        }
        let stored = col.type == .link ? try linkValue(value, column: col, className: table.name)
                                       : try mixedLink(value, column: col) ?? DynamicValues.scalar(value, column: col, className: table.name)
        if onlyIfChanged, try table.value(key, c) == stored { return }
        try table.set(key, c, stored)
    }

    /// A map's entries from a dictionary with string keys or a `Map`, sorted by key.
    private mutating func mapEntries(_ value: Any?, column col: ColumnSpec, className: String) throws -> [(key: String, value: StorageValue)] {
        guard let value = flattenOptional(value) else { return [] }
        guard let items = ObjectWriter.mapItems(value) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for map property '\(className).\(col.name)'; pass a dictionary with string keys")
        }
        let element = col.elementSpec
        return try items.map { k, item in
            try MapKeyRules.validate(k)
            if col.type == .link { return (key: k, value: try linkValue(item, column: element, className: className)) }
            return (key: k, value: try mixedLink(item, column: col) ?? DynamicValues.scalar(item, column: element, className: className))
        }
    }

    /// A list's or set's elements from an array or a collection.
    private mutating func listValues(_ value: Any?, column col: ColumnSpec, className: String) throws -> [StorageValue] {
        guard let value = flattenOptional(value) else { return [] }
        guard let items = ObjectWriter.listItems(value) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for list property '\(className).\(col.name)'; pass an array or a collection")
        }
        let element = col.elementSpec
        return try items.map { item in
            if col.type == .link {
                guard flattenOptional(item) != nil else { throw AtollError(.requiredValueMissing, "\(col.isSet ? "set" : "list") '\(className).\(col.name)' cannot hold nil objects") }
                return try linkValue(item, column: element, className: className)
            }
            return try mixedLink(item, column: col) ?? DynamicValues.scalar(item, column: element, className: className)
        }
    }

    /// For a mixed column, the typed link of a `DynamicObject` or of an `AnyRealmValue.object`
    /// holding a managed object of this realm; nil for every other value. A frame of its own:
    /// `set` is on the recursion of nested input (NestedInputTests' 512 KiB stack).
    @inline(never)
    private func mixedLink(_ value: Any?, column col: ColumnSpec) throws -> StorageValue? {
        guard col.type == .mixed, let value = flattenOptional(value) else { return nil }
        if let o = instance(value, of: DynamicObject.self) {
            guard o.context.transaction.database === transaction.database else {
                throw AtollError(.invalidArgument, "the '\(o.className)' object belongs to another realm; it cannot be a mixed value here")
            }
            return .typedLink(o.tableKey, o.key)
        }
        if let v = value as? AnyRealmValue, case .object(let o) = v {
            guard let m = o._managed, m.realm.database === transaction.database else {
                throw AtollError(.invalidArgument, "an object in a mixed value written through the dynamic API must be managed by this realm")
            }
            return .typedLink(m.binding.tableKey, m.key)
        }
        return try nestedMixed(value, column: col, depth: 0)
    }

    /// For a mixed column, a nested list or dictionary (an AnyRealmValue `.list`/`.dictionary`, or
    /// a Swift array or dictionary) as stored, its objects as typed links (`mixedLink`); nil for
    /// any other value. Deeper than `StorageValue.mixedNestingMax` is an error.
    private func nestedMixed(_ value: Any, column col: ColumnSpec, depth: Int) throws -> StorageValue? {
        if Swift.type(of: value) == [UInt8].self || value is Data || value is String { return nil }
        var value = value
        if let v = value as? AnyRealmValue {
            switch v {
            case .list(let l): value = Array(l) as [Any]
            case .dictionary(let m): value = Dictionary(uniqueKeysWithValues: m.asKeyValueSequence().map { ($0.key, $0.value as Any) })
            default: return nil
            }
        }
        func element(_ e: Any?) throws -> StorageValue {
            guard let e = flattenOptional(e) else { return .null }
            if let nested = try nestedMixed(e, column: col, depth: depth + 1) { return nested }
            if let link = try mixedLink(e, column: col) { return link }
            if let v = e as? AnyRealmValue, let stored = v.storageValue { return stored }
            guard let stored = ValueConversion.scalar(e, type: .mixed) else {
                throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(e)) in a nested collection of '\(col.name)'")
            }
            return stored
        }
        if let array = value as? [Any] {
            guard depth < StorageValue.mixedNestingMax else { throw AnyRealmValue.tooDeep() }
            return .mixedList(try array.map(element))
        }
        if let dictionary = value as? [String: Any] {
            guard depth < StorageValue.mixedNestingMax else { throw AnyRealmValue.tooDeep() }
            var entries: [String: StorageValue] = [:]
            for (k, e) in dictionary { entries[k] = try element(e) }
            return .mixedMap(entries)
        }
        return nil
    }

    /// A link from a `DynamicObject`, a managed `Object`, a dictionary (created), the target's
    /// primary-key value, or nil.
    mutating func linkValue(_ value: Any?, column col: ColumnSpec, className: String) throws -> StorageValue {
        guard let value = flattenOptional(value) else { return .null }
        let targetName = col.linkTarget ?? ""
        guard let target = try transaction.table(named: targetName) else {
            throw AtollError(.schemaMismatch, "'\(className).\(col.name)' links to '\(targetName)', which does not exist")
        }
        let mismatch = { (what: String) in
            AtollError(.typeMismatch, "'\(className).\(col.name)' links to '\(targetName)' objects, not \(what)")
        }
        if let o = instance(value, of: DynamicObject.self) {
            guard o.context.transaction.database === transaction.database else {
                throw AtollError(.invalidArgument, "the '\(o.className)' object belongs to another realm; pass its values as a dictionary to copy it")
            }
            guard o.tableKey == target.key else { throw mismatch("'\(o.className)' objects") }
            guard try target.contains(o.key) else { throw AtollError(.invalidatedObject, "the '\(targetName)' object has been deleted") }
            return .link(o.key)
        }
        if let o = instance(value, of: Object.self) {
            guard let m = o._managed else {
                // An unmanaged object is created from its values, as RealmSwift does for a
                // migration object's link (`newObject["owner"] = Person(value: ...)`).
                guard o.objectSchema.className == targetName else { throw mismatch("'\(o.objectSchema.className)' objects") }
                var values: [String: Any?] = [:]
                for p in o.objectSchema.properties where p.isStored { values[p.name] = o.value(forKey: p.name) }
                return .link(try create(in: target, values: values))
            }
            guard m.schema.className == targetName, m.realm.database === transaction.database else { throw mismatch("this '\(m.schema.className)' object") }
            return .link(m.key)
        }
        if let dict = value as? [String: Any?] { return .link(try create(in: target, values: dict)) }
        if let dict = value as? [String: Any] { return .link(try create(in: target, values: dict.mapValues { Optional($0) })) }
        guard let pkIndex = target.spec.primaryKeyIndex else {
            throw mismatch("\(ValueConversion.describe(value)) ('\(targetName)' has no primary key to refer by; pass an object or a dictionary)")
        }
        let pk = try DynamicValues.scalar(value, column: target.spec.columns[pkIndex], className: targetName)
        guard let found = try target.find(primaryKey: pk) else {
            throw AtollError(.objectNotFound, "'\(className).\(col.name)': no '\(targetName)' object has primary key \(InterchangeText.describe(pk))")
        }
        return .link(found)
    }
}
