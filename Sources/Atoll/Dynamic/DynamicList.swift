import AtollStorage

/// A list-of-objects property of a `DynamicObject` (or of a managed `Object`, read by name), as
/// RealmSwift's `dynamicList(_:)` gives it: live, indexable, changed in place.
///
/// ```swift
/// migration.enumerateObjects(ofType: "Person") { _, newObject in
///     let dogs = newObject!.dynamicList("dogs")
///     dogs.append(migration.create("Dog", value: ["name": "Rex"])!)
///     print(dogs.count, dogs[0].name ?? "")
/// }
/// ```
/// RealmSwift returns `List<DynamicObject>`; a `DynamicObject` is no `Object` in Atoll, so the
/// list is its own type with `List`'s reading and writing methods (README, Differences).
///
/// Reads follow the object's realm (or migration) and use no cache: O(n) per read of the
/// list's keys. Changes need a write transaction (in a migration, none), as for `List`; an
/// invalid change (an index out of bounds, an object of another realm or class) makes the
/// enclosing write throw (a migration: the opening), and a change outside a write stops the
/// program. Reading an object that was deleted, or a list that cannot be read, stops the
/// program (README, "Failed reads").
public final class DynamicList: RandomAccessCollection, CustomStringConvertible {
    public typealias Element = DynamicObject
    public typealias Index = Int

    /// The object the list belongs to.
    public let object: DynamicObject
    /// The list property's name.
    public let property: String

    init(object: DynamicObject, property: String) {
        self.object = object
        self.property = property
    }

    /// The list's table and column, the object's key and the target class's table key.
    private func location() throws -> (table: Table, column: Int, target: TableKey) {
        let (t, c) = try object.column(property)
        let col = t.spec.columns[c]
        guard col.isList, col.type == .link, let name = col.linkTarget, let target = object.context.transaction.tableKey(named: name) else {
            throw AtollError(.invalidArgument, "'\(t.name).\(property)' is not a list of objects")
        }
        return (t, c, target)
    }

    /// Stops the program for a read that cannot answer: a failed read (README, "Failed reads"),
    /// or misuse (a deleted object, another thread; RealmSwift raises).
    private func readStop(_ error: any Error) -> Never {
        object.stop(error, reading: "the list '\(property)'")
    }

    /// The keys of the list's objects, in order.
    private func keys() -> (keys: [ObjectKey], target: TableKey) {
        do {
            let (t, c, target) = try location()
            let keys = try t.listValues(object.key, c).map { v -> ObjectKey in
                guard case .link(let k) = v else { throw AtollError.corrupted("'\(t.name).\(property)' holds a value that is not a link") }
                return k
            }
            return (keys, target)
        } catch {
            readStop(error)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of objects. O(n).
    public var count: Int { keys().keys.count }

    /// The object at `index` (in bounds, or the program stops as for `List`); setting replaces it.
    public subscript(index: Int) -> DynamicObject {
        get {
            let (keys, target) = keys()
            guard index >= 0, index < keys.count else {
                atollProgrammerError("index \(index) out of bounds for the list '\(object.className).\(property)' (count \(keys.count))")
            }
            return DynamicObject(context: object.context, tableKey: target, key: keys[index])
        }
        set { replace(index: index, object: newValue) }
    }

    /// The position of an object of this list, or nil.
    public func index(of element: DynamicObject) -> Int? {
        let (keys, target) = keys()
        guard element.tableKey == target, element.context.transaction.database === object.context.transaction.database else { return nil }
        return keys.firstIndex(of: element.key)
    }

    /// Whether the list's object was deleted.
    public var isInvalidated: Bool { object.isInvalidated }
    /// The realm of the list's object (nil in a migration).
    public var realm: Realm? { object.realm }

    public var description: String {
        let names = map { o in o.primaryKey.map { "\($0)" } ?? "#\(o.key.rawValue)" }
        return "DynamicList<\(object.className).\(property)> [\(names.joined(separator: ", "))]"
    }

    // MARK: changing

    /// Runs a change of the list; an error fails the enclosing write (or migration).
    private func change(_ body: (Table, Int, inout DynamicWriter) throws -> Void) {
        do {
            try object.context.checkWrite()
            let (t, c, _) = try location()
            var writer = DynamicWriter(context: object.context, update: .modified)
            try body(t, c, &writer)
        } catch {
            object.context.reportError(error as? AtollError ?? AtollError(.invalidArgument, "\(error)"))
        }
    }

    /// A link to `value`: a `DynamicObject` or managed `Object` of this realm, a dictionary (a
    /// new object), or the target's primary-key value.
    private func link(_ value: Any, _ t: Table, _ c: Int, _ writer: inout DynamicWriter) throws -> StorageValue {
        var element = t.spec.columns[c]
        element.isList = false
        let stored = try writer.linkValue(value, column: element, className: t.name)
        guard stored != .null else { throw AtollError(.requiredValueMissing, "the list '\(t.name).\(property)' cannot hold nil") }
        return stored
    }

    /// Appends an object (a `DynamicObject`, a managed `Object`, a dictionary of a new
    /// object's values, or an existing object's primary key).
    public func append(_ value: Any) {
        change { t, c, writer in
            let stored = try link(value, t, c, &writer)
            try t.listInsert(object.key, c, at: try t.listValues(object.key, c).count, stored)
        }
    }

    /// Appends objects, in order.
    public func append<S: Sequence>(objectsIn values: S) {
        change { t, c, writer in
            for value in values {
                let stored = try link(value, t, c, &writer)
                try t.listInsert(object.key, c, at: try t.listValues(object.key, c).count, stored)
            }
        }
    }

    /// Inserts an object at `index` (0...count).
    public func insert(_ value: Any, at index: Int) {
        change { t, c, writer in try t.listInsert(object.key, c, at: index, try link(value, t, c, &writer)) }
    }

    /// Replaces the object at `index`.
    public func replace(index: Int, object value: Any) {
        change { t, c, writer in try t.listSet(object.key, c, at: index, try link(value, t, c, &writer)) }
    }

    /// Removes the object at `index` from the list (the object itself stays).
    public func remove(at index: Int) {
        change { t, c, _ in try t.listRemove(object.key, c, at: index) }
    }

    /// Removes the last object; the list must not be empty.
    public func removeLast() {
        change { t, c, _ in try t.listRemove(object.key, c, at: try t.listValues(object.key, c).count - 1) }
    }

    /// Removes every object from the list (the objects themselves stay).
    public func removeAll() {
        change { t, c, _ in try t.listClear(object.key, c) }
    }

    /// Moves the object at `from` to `to`.
    public func move(from: Int, to: Int) {
        change { t, c, _ in try t.listMove(object.key, c, from: from, to: to) }
    }

    /// Swaps the objects at two positions.
    public func swapAt(_ index1: Int, _ index2: Int) {
        change { t, c, _ in
            let values = try t.listValues(object.key, c)
            guard values.indices.contains(index1), values.indices.contains(index2) else {
                throw AtollError(.invalidArgument, "cannot swap \(index1) and \(index2) in '\(t.name).\(property)' with \(values.count) elements")
            }
            guard index1 != index2 else { return }
            try t.listSet(object.key, c, at: index1, values[index2])
            try t.listSet(object.key, c, at: index2, values[index1])
        }
    }
}

extension DynamicObject {
    /// A list-of-objects property as a live list (RealmSwift's `dynamicList(_:)`). An unknown
    /// property or one that is not a list of objects is a programming error, as in RealmSwift.
    public func dynamicList(_ propertyName: String) -> DynamicList {
        let list = DynamicList(object: self, property: propertyName)
        do {
            let (t, c) = try column(propertyName)
            let col = t.spec.columns[c]
            guard col.isList, col.type == .link else {
                atollProgrammerError("'\(t.name).\(propertyName)' is not a list of objects; read a list of values with the subscript")
            }
        } catch {
            stop(error, reading: "the list '\(propertyName)'")
        }
        return list
    }

    /// Stops the program for an error of an API that cannot throw: a read that failed as
    /// every such accessor does (README, "Failed reads"), anything else (an unknown property, a
    /// deleted object, another thread) as the misuse RealmSwift raises for.
    func stop(_ error: any Error, reading what: String) -> Never {
        switch (error as? AtollError)?.kind {
        case .fileCorrupted?, .ioError?: readFailed(error, reading: what)
        default: atollProgrammerError("cannot read \(what) of '\(className)': \((error as? AtollError)?.message ?? "\(error)")")
        }
    }
}

extension Object {
    /// A list-of-objects property of this managed object read by name, as a `DynamicList` of
    /// `DynamicObject`s (RealmSwift's `dynamicList(_:)`). The object must be managed; an unknown
    /// property or one that is not a list of objects is a programming error.
    public func dynamicList(_ propertyName: String) -> DynamicList {
        guard let m = _managed else {
            atollProgrammerError("dynamicList(\"\(propertyName)\") needs a managed object; add '\(objectSchema.className)' to a realm first")
        }
        m.realm.verifyThread()
        return DynamicObject(context: DynamicContext(realm: m.realm), tableKey: m.binding.tableKey, key: m.key).dynamicList(propertyName)
    }
}
