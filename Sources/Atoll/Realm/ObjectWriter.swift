import Foundation
import AtollStorage

extension Realm {
    /// What `add` and `create` do when an object with the same primary key exists.
    public enum UpdatePolicy: Sendable {
        /// Fail: the write throws `.primaryKeyExists`.
        case error
        /// Update the existing object, writing (and notifying) only properties whose value changed.
        case modified
        /// Update the existing object, writing every property given.
        case all
    }
}

/// Adds unmanaged object graphs and dynamic values (dictionaries, arrays, JSON) to a realm,
/// inside one write transaction. Follows links and lists recursively; each unmanaged object is
/// added once even when the graph has cycles.
struct ObjectWriter {
    let realm: Realm
    let transaction: WriteTransaction
    let update: Realm.UpdatePolicy
    private var added: [ObjectIdentifier: ObjectKey] = [:]
    private var addedObjects: [(Object, ClassBinding, ObjectKey)] = []
    /// Objects of other realms copied by `create(_:value:)`, by source identity, so a copied
    /// graph with cycles is copied once.
    private var copies: [CopySource: ObjectKey] = [:]
    /// Unmanaged objects copied by `create(_:value:)`, by identity (a graph with cycles is
    /// copied once).
    private var unmanagedCopies: [ObjectIdentifier: ObjectKey] = [:]
    /// Inside `create(_:value:)`: objects of other realms and unmanaged objects are copied
    /// (`add` refuses the former and makes the latter managed).
    private var createDepth = 0
    /// Objects being added or created, one inside another (`InputLimits.objectNestingDepthMax`).
    private var nestingDepth = 0

    private struct CopySource: Hashable {
        let database: ObjectIdentifier
        let table: TableKey
        let key: ObjectKey
    }

    /// Adding one object alone (`Realm.add(_:)`): an object without links or lists is complete
    /// once stored, so it becomes managed at once, without the bookkeeping graphs need.
    private let managesAtOnce: Bool

    init(realm: Realm, transaction: WriteTransaction, update: Realm.UpdatePolicy, singleObject: Bool = false) {
        self.realm = realm
        self.transaction = transaction
        self.update = update
        managesAtOnce = singleObject
    }

    /// Updating (`.modified`, `.all`) needs a primary key on the class added or created, as in
    /// RealmSwift; objects it links to without one are created.
    static func requireUpdatable(_ type: Object.Type, _ update: Realm.UpdatePolicy) throws {
        guard update != .error, ObjectSchema.of(type).primaryKeyProperty == nil else { return }
        throw AtollError(.primaryKeyMissing, "'\(type.className())' has no primary key, so it cannot be updated; add it with update: .error")
    }

    /// Embedded objects are stored only inside a parent, as in RealmSwift.
    static func requireTopLevel(_ type: Object.Type, _ what: String) throws {
        guard ObjectSchema.of(type).isEmbedded else { return }
        throw AtollError(.invalidArgument, "cannot \(what) an embedded '\(type.className())' object on its own: embedded objects cannot be created directly; assign it to a property (or list or map) of its parent")
    }

    /// Marks every object added as managed. Call after the whole graph is stored.
    func finish() {
        for (object, binding, key) in addedObjects {
            object._managed = ManagedObjectState(realm: realm, binding: binding, key: key)
            object.dropStoredValues(binding)
        }
    }

    // MARK: objects

    /// A mixed value as stored: `.object` adds its object when unmanaged (as a link does) and
    /// becomes a typed link, the object's table and key.
    mutating func mixedValue(_ v: AnyRealmValue) throws -> StorageValue {
        if let stored = v.storageValue { return stored }
        switch v {
        case .list, .dictionary: return try nestedMixedValue(v, depth: 0)
        default: break
        }
        guard case .object(let o) = v else { preconditionFailure("only .object and nested collections have no stored form of their own") }
        let key = try add(o)
        let binding = o._managed?.binding ?? realm.requireBinding(for: type(of: o))
        return .typedLink(binding.tableKey, key)
    }

    /// The typed link of an `AnyRealmValue.object` given for a mixed property or element; nil for
    /// any other value. A frame of its own: `setProperty` and `elementValue` are on the recursion
    /// of nested input, whose frames must stay small (NestedInputTests' 512 KiB stack).
    @inline(never)
    mutating func mixedObjectValue(_ value: Any?) throws -> StorageValue? {
        guard let v = flattenOptional(value) as? AnyRealmValue else { return nil }
        switch v {
        case .object, .list, .dictionary: return try mixedValue(v)
        default: return nil
        }
    }

    /// The stored form of `value` for scalar property `p` (a mixed `.object` included). A frame
    /// of its own, so that `setProperty`, on the recursion of nested input, keeps its frame.
    @inline(never)
    mutating func scalarValue(_ value: Any?, property p: PropertyInfo) throws -> StorageValue {
        if let stored = try mixedObjectValue(value) { return stored }
        if let stored = try nestedMixedInput(value, property: p) { return stored }
        return try p.storageValue(from: value, realm: realm)
    }

    /// Adds an unmanaged object (and what it links to). Returns its key.
    /// `existing`: the row of an embedded object that an update with `.modified` writes the
    /// object's values into (RealmSwift updates such embedded objects in place).
    mutating func add(_ object: Object, into existing: ObjectKey? = nil) throws -> ObjectKey {
        if let m = object._managed {
            if m.schema.isEmbedded {
                throw AtollError(.invalidArgument, "cannot link an existing managed embedded '\(m.schema.className)' object again: an embedded object has exactly one owner; assign an unmanaged one or a dictionary of its values (a copy)")
            }
            guard realm.owns(m) else {
                throw AtollError(.invalidArgument, "this '\(m.schema.className)' object is managed by another Realm; use create(_:value:) to copy it")
            }
            guard !m.isInvalidated else { throw AtollError(.invalidatedObject, "cannot add a deleted '\(m.schema.className)' object") }
            return m.key
        }
        let id = ObjectIdentifier(object)
        if let key = added[id] { return key }
        nestingDepth += 1
        defer { nestingDepth -= 1 }
        guard nestingDepth <= InputLimits.objectNestingDepthMax else { throw InputLimits.objectNestingExceeded(type(of: object).className()) }
        let binding = try realm.binding(for: type(of: object))
        let schema = binding.schema
        let table = try realm.table(binding)
        let pkIndex = schema.primaryKeyProperty.flatMap { schema.index(of: $0.name) }
        if update == .error, let key = try insertScalars(object, binding: binding, table: table, primaryKeyIndex: pkIndex) {
            return key
        }
        let (key, isNew): (ObjectKey, Bool)
        if let existing {
            (key, isNew) = (existing, false)
        } else if let pkIndex, let stored = object.unmanagedValue(pkIndex)?._atollStorageValue {
            (key, isNew) = try row(for: schema, table: table, primaryKeyValue: stored)
        } else {
            (key, isNew) = try row(for: schema, binding: binding, table: table, primaryKey: pkIndex.map { object.unmanagedValue($0) })
        }
        added[id] = key
        addedObjects.append((object, binding, key))
        let onlyIfChanged = !isNew && update == .modified
        for (i, p) in schema.allProperties.enumerated() where p.isStored && !p.isPrimaryKey {
            let value = object.unmanagedValue(i)
            // Scalars convert through their own type, without dynamic casts.
            if case .scalar = p.atollType.kind, let stored = value?._atollStorageValue, binding.columns[i] >= 0 {
                if stored.isNull && !p.atollType.isOptional {
                    throw AtollError(.requiredValueMissing, "property '\(schema.className).\(p.name)' is required; nil is not allowed")
                }
                if onlyIfChanged, try table.value(key, binding.columns[i]) == stored { continue }
                try table.set(key, binding.columns[i], stored)
                continue
            }
            try setProperty(p, index: i, of: key, binding: binding, to: value, onlyIfChanged: onlyIfChanged)
        }
        return key
    }

    /// Adds a new object whose stored properties are all scalars in one table operation (the
    /// common case, and the one bulk loads hit); nil when the object has links or lists, which
    /// take the general path.
    private mutating func insertScalars(_ object: Object, binding: ClassBinding, table: Table, primaryKeyIndex: Int?) throws -> ObjectKey? {
        let schema = binding.schema
        guard binding.allStoredAreScalars else { return nil }
        var primaryKey = StorageValue.null
        if let pk = primaryKeyIndex {
            guard let stored = object.unmanagedValue(pk)?._atollStorageValue else { return nil }
            primaryKey = stored
        }
        // The realm's scratch array, borrowed (so it stays uniquely referenced) and given back.
        var values: [StorageValue?] = []
        swap(&values, &realm.insertScratch)
        defer { swap(&values, &realm.insertScratch) }
        let columnCount = table.spec.columns.count
        if values.count == columnCount {
            for c in 0..<columnCount { values[c] = nil }
        } else {
            values = Array(repeating: nil, count: columnCount)
        }
        for (i, column) in binding.columns.enumerated() where column >= 0 && i != primaryKeyIndex {
            guard let stored = object.unmanagedValue(i)?._atollStorageValue else { return nil }
            if stored.isNull && !schema.allProperties[i].atollType.isOptional {
                throw AtollError(.requiredValueMissing, "property '\(schema.className).\(schema.allProperties[i].name)' is required; nil is not allowed")
            }
            values[column] = stored
        }
        let key: ObjectKey
        do {
            key = try table.create(primaryKey: primaryKey, values: values)
        } catch let e as AtollError where e.kind == .primaryKeyExists {
            throw AtollError(.primaryKeyExists, "an object of class '\(schema.className)' with primary key \(primaryKey) already exists; use update: .modified or .all to update it")
        }
        if managesAtOnce {
            object._managed = ManagedObjectState(realm: realm, binding: binding, key: key)
        } else {
            added[ObjectIdentifier(object)] = key
            addedObjects.append((object, binding, key))
        }
        return key
    }

    /// Finds (for updates) or creates the row of an object. Returns its key and whether it is new.
    private mutating func row(for schema: ObjectSchema, binding: ClassBinding, table: Table, primaryKey: Any??) throws -> (ObjectKey, Bool) {
        // Without a primary key there is nothing to update: a new object, also in an update
        // (an object linked from the one being added or created; the class of that one
        // itself is checked by `requireUpdatable`).
        guard let pk = schema.primaryKeyProperty else { return (try table.create(), true) }
        guard let given = primaryKey else {
            throw AtollError(.primaryKeyMissing, "a value for the primary key '\(schema.className).\(pk.name)' is required")
        }
        return try row(for: schema, table: table, primaryKeyValue: try pk.storageValue(from: given, realm: realm))
    }

    /// Like `row(for:binding:table:primaryKey:)` with the key already converted.
    private mutating func row(for schema: ObjectSchema, table: Table, primaryKeyValue value: StorageValue) throws -> (ObjectKey, Bool) {
        if update == .error {
            // The insert itself detects a duplicate: no separate lookup.
            do {
                return (try table.create(primaryKey: value), true)
            } catch let e as AtollError where e.kind == .primaryKeyExists {
                throw AtollError(.primaryKeyExists, "an object of class '\(schema.className)' with primary key \(value) already exists; use update: .modified or .all to update it")
            }
        }
        if let existing = try table.find(primaryKey: value) {
            guard update != .error else {
                throw AtollError(.primaryKeyExists, "an object of class '\(schema.className)' with primary key \(value) already exists; use update: .modified or .all to update it")
            }
            return (existing, false)
        }
        return (try table.create(primaryKey: value), true)
    }

    /// Creates (or with an update policy, updates) an object from a dictionary, an array of
    /// values in property order, or another object. Returns its key.
    mutating func create(_ type: Object.Type, value: Any?, into existing: ObjectKey? = nil) throws -> ObjectKey {
        createDepth += 1
        nestingDepth += 1
        defer {
            createDepth -= 1
            nestingDepth -= 1
        }
        guard nestingDepth <= InputLimits.objectNestingDepthMax else { throw InputLimits.objectNestingExceeded(type.className()) }
        let binding = try realm.binding(for: type)
        let schema = binding.schema
        let table = try realm.table(binding)
        let given = try properties(of: schema, from: value)
        var pkValue: Any?? = nil
        if let pk = schema.primaryKeyProperty, let i = schema.index(of: pk.name), let v = given[i] { pkValue = .some(v) }
        if schema.primaryKeyProperty != nil, pkValue == nil, let defaultPK = schema.primaryKeyProperty, let i = schema.index(of: defaultPK.name) {
            // A missing primary key takes the class's default (as RealmSwift does) when the
            // declaration has one.
            if defaultPK.needsValueOnCreate { throw Self.missingValue(defaultPK, schema) }
            pkValue = .some(Self.defaults(of: type)[i])
        }
        let (key, isNew) = try existing.map { ($0, false) } ?? row(for: schema, binding: binding, table: table, primaryKey: pkValue)
        // Registered before the properties are copied, so links back to it find the copy.
        if let object = instance(flattenOptional(value), of: Object.self) {
            if let source = object._managed {
                if !realm.owns(source) {
                    copies[CopySource(database: ObjectIdentifier(source.realm.database), table: source.binding.tableKey, key: source.key)] = key
                }
            } else {
                unmanagedCopies[ObjectIdentifier(object)] = key
            }
        }
        let defaults = isNew ? Self.defaults(of: type) : []
        for (i, p) in schema.allProperties.enumerated() where p.isStored && !p.isPrimaryKey {
            if let v = given[i] {
                try setProperty(p, index: i, of: key, binding: binding, to: v, onlyIfChanged: !isNew && update == .modified)
            } else if isNew {
                if p.needsValueOnCreate { throw Self.missingValue(p, schema) }
                try setProperty(p, index: i, of: key, binding: binding, to: defaults[i], onlyIfChanged: false)
            }
        }
        return key
    }

    private static func missingValue(_ p: PropertyInfo, _ schema: ObjectSchema) -> AtollError {
        AtollError(.requiredValueMissing, "property '\(schema.className).\(p.name)' is required and has no default value; give it a value (or declare a default in the model)")
    }

    /// Default values of a class's properties (from a fresh unmanaged instance).
    static func defaults(of type: Object.Type) -> [(any PersistableValue)?] {
        let o = type.init()
        return (0..<o.objectSchema.allProperties.count).map { o.unmanagedValue($0) }
    }

    /// The given properties of a dynamic value, by property index (absent: not given).
    private func properties(of schema: ObjectSchema, from value: Any?) throws -> [Int: Any?] {
        guard let value = flattenOptional(value) else { return [:] }
        var result: [Int: Any?] = [:]
        if let dict = value as? [String: Any?] {
            for (i, p) in schema.allProperties.enumerated() where p.isStored {
                if let entry = dict[p.name] { result[i] = entry }
            }
        } else if let dict = value as? [String: Any] {
            for (i, p) in schema.allProperties.enumerated() where p.isStored {
                if let entry = dict[p.name] { result[i] = .some(entry) }
            }
        } else if let dict = instance(value, of: NSDictionary.self) {
            for (i, p) in schema.allProperties.enumerated() where p.isStored {
                if let entry = dict[p.name] { result[i] = .some(entry) }
            }
        } else if let array = Self.array(value) {
            // As in RealmSwift: values in the order of `properties` (a superclass's first);
            // properties without a value get their defaults.
            let stored = schema.storedSlotsInOrder
            guard array.count <= stored.count else {
                throw AtollError(.invalidArgument, "an array value for '\(schema.className)' has \(array.count) values, but the class has only \(stored.count) persisted properties")
            }
            for (j, value) in array.enumerated() { result[stored[j]] = .some(value) }
        } else if let object = instance(value, of: Object.self) {
            for (i, p) in schema.allProperties.enumerated() where p.isStored {
                guard object.objectSchema.index(of: p.name) != nil else { continue }
                result[i] = .some(object.value(forKey: p.name))
            }
        } else {
            throw AtollError(.invalidArgument, "cannot make a '\(schema.className)' from \(ValueConversion.describe(value)); pass a dictionary, an array or an object")
        }
        return result
    }

    static func array(_ value: Any) -> [Any?]? {
        if let a = value as? [Any?] { return a }
        if let a = value as? [Any] { return a.map { .some($0) } }
        if let a = instance(value, of: NSArray.self) { return a.map { .some($0) } }
        return nil
    }

    /// The elements of a value given for a list property: an array, a `List`, `Results` or
    /// `LinkingObjects` (as in RealmSwift, any collection may be assigned to a list).
    static func listItems(_ value: Any) -> [Any?]? {
        if let list = instance(value, of: (any _ListProtocol).self) { return list.anyElements }
        if let set = instance(value, of: (any _MutableSetProtocol).self) { return set.anyElements }
        if let items = array(value) { return items }
        if let collection = value as? any _ObjectCollection { return collection._objects.map { .some($0) } }
        return nil
    }

    // MARK: properties

    /// Sets one property of a stored object from a dynamic value.
    mutating func setProperty(_ p: PropertyInfo, index i: Int, of key: ObjectKey, binding: ClassBinding, to value: Any?,
                              onlyIfChanged: Bool = false) throws
    {
        let column = binding.columns[i]
        guard column >= 0 else { return }
        let table = try realm.table(binding)
        switch p.atollType.kind {
        case .scalar:
            let stored = try scalarValue(value, property: p)
            if onlyIfChanged, try table.value(key, column) == stored { return }
            try table.set(key, column, stored)
        case .link:
            if onlyIfChanged, let target = p.atollType.objectType, ObjectSchema.of(target).isEmbedded,
               case .link(let existing) = try table.value(key, column), let given = flattenOptional(value)
            {
                // `.modified` writes into the embedded object there, as RealmSwift does.
                if let object = instance(given, of: Object.self), object._managed == nil {
                    _ = try add(object, into: existing)
                } else {
                    _ = try create(target, value: given, into: existing)
                }
                return
            }
            let stored = try linkValue(value, property: p)
            if onlyIfChanged, try table.value(key, column) == stored { return }
            try table.set(key, column, stored)
        case .list:
            if onlyIfChanged, let target = p.atollType.objectType, ObjectSchema.of(target).isEmbedded {
                return try updateEmbeddedList(p, of: key, column: column, table: table, target: target, to: value)
            }
            let elements = try listElements(value, property: p)
            if onlyIfChanged, try table.listValues(key, column) == elements { return }
            try table.setList(key, column, elements)
        case .set:
            let elements = try listElements(value, property: p)
            if onlyIfChanged, try table.listValues(key, column) == SortedSearch.sortedUnique(elements) { return }
            try table.setAssign(key, column, elements)
        case .map:
            let entries = try mapEntries(value, property: p)
            if onlyIfChanged {
                let current = try table.mapEntries(key, column)
                if current.count == entries.count, Dictionary(entries, uniquingKeysWith: { $1 }) == Dictionary(current.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }) { return }
            }
            try table.mapAssign(key, column, entries.map { (key: $0.0, value: $0.1) })
        case .linkingObjects:
            return
        }
    }

    /// `.modified` on a list of embedded objects, as RealmSwift does it: the objects at the
    /// positions both lists have are updated in place, the rest are added or deleted.
    private mutating func updateEmbeddedList(_ p: PropertyInfo, of key: ObjectKey, column: Int, table: Table, target: Object.Type,
                                             to value: Any?) throws
    {
        let existing = try table.listValues(key, column)
        var items: [Any?] = []
        if let v = flattenOptional(value) {
            guard let given = Self.listItems(v) else {
                throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(v)) for list property '\(p.name)'")
            }
            items = given
        }
        var elements: [StorageValue] = []
        for (i, item) in items.enumerated() {
            if i < existing.count, case .link(let row) = existing[i], let given = flattenOptional(item) {
                if let object = instance(given, of: Object.self), object._managed == nil {
                    _ = try add(object, into: row)
                } else {
                    _ = try create(target, value: given, into: row)
                }
                elements.append(.link(row))
            } else {
                elements.append(try elementValue(item, property: p))
            }
        }
        if elements == existing { return }
        try table.setList(key, column, elements)
    }

    /// A link from an object, a dictionary or array (created), or nil.
    mutating func linkValue(_ value: Any?, property p: PropertyInfo) throws -> StorageValue {
        guard let value = flattenOptional(value) else { return .null }
        guard let target = p.atollType.objectType else { return .null }
        if let object = instance(value, of: Object.self) {
            guard ObjectIdentifier(type(of: object)) == ObjectIdentifier(target) else {
                throw AtollError(.typeMismatch, "property '\(p.name)' links to '\(target.className())', not '\(type(of: object).className())'")
            }
            if let m = object._managed, realm.owns(m), createDepth > 0, m.schema.isEmbedded {
                // `create(_:value:)` from a managed parent copies its embedded objects: they
                // cannot have two owners.
                return .link(try create(target, value: object))
            }
            if let m = object._managed, !realm.owns(m), createDepth > 0 {
                // An object of another realm: `create(_:value:)` copies it with what it links to.
                let source = CopySource(database: ObjectIdentifier(m.realm.database), table: m.binding.tableKey, key: m.key)
                if let copied = copies[source] { return .link(copied) }
                return .link(try create(target, value: object))
            }
            if object._managed == nil, createDepth > 0 {
                // `create(_:value:)` copies unmanaged objects too; they stay unmanaged, as in
                // RealmSwift.
                if let copied = unmanagedCopies[ObjectIdentifier(object)] { return .link(copied) }
                return .link(try create(target, value: object))
            }
            return .link(try add(object))
        }
        return .link(try create(target, value: value))
    }

    /// The elements of a list property from an array, a List or any sequence.
    mutating func listElements(_ value: Any?, property p: PropertyInfo) throws -> [StorageValue] {
        guard let value = flattenOptional(value) else { return [] }
        guard let items = Self.listItems(value) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for list property '\(p.name)'")
        }
        var result: [StorageValue] = []
        result.reserveCapacity(items.count)
        for item in items { result.append(try elementValue(item, property: p)) }
        return result
    }

    /// One element of a list or set, or one value of a map, as stored.
    mutating func elementValue(_ item: Any?, property p: PropertyInfo) throws -> StorageValue {
        guard let (elementType, target) = p.atollType.collectionElement else { return .null }
        let what = p.isMap ? "map" : p.isSet ? "set" : "list"
        if target != nil {
            if flattenOptional(item) == nil {
                guard p.isMap else { throw AtollError(.requiredValueMissing, "\(what) '\(p.name)' cannot hold nil objects") }
                return .null
            }
            return try linkValue(item, property: p)
        } else if let stored = try mixedObjectValue(item) {
            return stored
        } else if let item = flattenOptional(item) {
            guard let v = ValueConversion.scalar(item, type: elementType) else {
                throw AtollError(.typeMismatch, "invalid element \(ValueConversion.describe(item)) for \(what) property '\(p.name)'")
            }
            return v
        } else {
            guard p.atollType.isOptional else { throw AtollError(.requiredValueMissing, "\(what) '\(p.name)' cannot hold nil") }
            return .null
        }
    }

    /// The entries of a value given for a map property: a `Map`, a dictionary with string
    /// keys, or nil (empty).
    mutating func mapEntries(_ value: Any?, property p: PropertyInfo) throws -> [(String, StorageValue)] {
        guard let value = flattenOptional(value) else { return [] }
        guard let entries = Self.mapItems(value) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for map property '\(p.name)'")
        }
        var result: [(String, StorageValue)] = []
        result.reserveCapacity(entries.count)
        for (k, v) in entries {
            try MapKeyRules.validate(k)
            result.append((k, try elementValue(v, property: p)))
        }
        return result
    }

    /// The entries of a value given for a map property, sorted by key; nil for other values.
    static func mapItems(_ value: Any) -> [(String, Any?)]? {
        if let map = instance(value, of: (any _MapProtocol).self) { return map.anyEntries }
        if let d = value as? [String: Any?] { return d.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value) } }
        if let d = value as? [String: Any] { return d.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, .some($0.value)) } }
        if let d = instance(value, of: NSDictionary.self) {
            var result: [(String, Any?)] = []
            for (k, v) in d {
                guard let key = k as? String else { return nil }
                result.append((key, .some(v)))
            }
            return result.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        }
        return nil
    }
}
