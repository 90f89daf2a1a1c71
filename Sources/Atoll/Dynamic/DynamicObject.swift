import Foundation
public import AtollStorage

/// Where dynamic objects read and write: a realm (its current version, or its open write), or
/// the one transaction of a migration.
final class DynamicContext {
    enum Owner {
        case realm(Realm)
        case transaction(Transaction)
    }

    let owner: Owner
    /// Receives failures of the non-throwing subscript setter.
    let reportError: (AtollError) -> Void

    /// Objects of a realm: a failed subscript assignment makes the enclosing write throw.
    init(realm: Realm) {
        owner = .realm(realm)
        reportError = { error in
            guard realm.isInWriteTransaction else {
                atollProgrammerError("a DynamicObject was changed outside a write transaction (realm.write { ... }): \(error.message)")
            }
            realm.recordError(error)
        }
    }

    /// Objects of a migration: failures are recorded by the migration.
    init(_ transaction: Transaction, reportError: @escaping (AtollError) -> Void) {
        owner = .transaction(transaction)
        self.reportError = reportError
    }

    var transaction: Transaction {
        switch owner {
        case .realm(let r): r.transaction
        case .transaction(let t): t
        }
    }

    var realm: Realm? { if case .realm(let r) = owner { r } else { nil } }

    /// Throws unless the caller may read (the realm's thread).
    func checkRead() throws {
        try realm?.checkThread()
    }

    /// Throws unless the caller may write (the realm's thread, inside a write transaction).
    func checkWrite() throws {
        guard let realm else { return }
        try realm.checkThread()
        guard realm.isInWriteTransaction else {
            throw AtollError(.invalidTransaction, "objects can only be changed inside a write transaction (realm.write { ... })")
        }
    }
}

/// An object of a class known only at run time: values by property name.
///
/// ```swift
/// let realm = try Realm(configuration: config, dynamicSchema: schema)
/// for dog in realm.dynamicObjects("Dog").filter("age > 2") {
///     print(dog["name"] as? String ?? "", (dog["owner"] as? DynamicObject)?["name"] ?? "nil")
/// }
/// try realm.write { try realm.dynamicObjects("Dog").first?.setValue(4, forProperty: "age") }
/// ```
///
/// Values are Swift values: `Bool`, `Int`, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`,
/// `ObjectId`, nil; a link is a `DynamicObject`, a list an array. A link may be set to a
/// `DynamicObject`, nil, a dictionary (a new object, or with the target's primary key an
/// existing one updated), or the primary-key value of an existing target.
///
/// Objects of a realm follow its version, like managed `Object`s: reads see the realm's
/// current version, and they must be used on the realm's thread. In migrations they are the
/// objects of `Migration.enumerateObjects`.
@dynamicMemberLookup
public final class DynamicObject: CustomStringConvertible {
    let context: DynamicContext
    let tableKey: TableKey
    /// The object's key in its table (stable while it exists).
    public let key: ObjectKey
    /// Maps a property name of this view to the name of its column in the table (nil: absent).
    /// nil for the identity (the object as stored).
    let columnName: ((String) -> String?)?
    /// The schema this view presents (a migration's old or new schema of the class); nil: the
    /// class as the realm stores it.
    private let viewSchema: ObjectSchema?

    init(context: DynamicContext, tableKey: TableKey, key: ObjectKey, columnName: ((String) -> String?)? = nil, schema: ObjectSchema? = nil) {
        self.context = context
        self.tableKey = tableKey
        self.key = key
        self.columnName = columnName
        viewSchema = schema
    }

    /// The schema of the object's class (RealmSwift's `objectSchema`): in a migration, the old
    /// object's is the class in the old file and the new object's the class being migrated to;
    /// otherwise the model class's schema when the stored class matches one, else the class as
    /// stored. Read from the version's schema, not from pages.
    public var objectSchema: ObjectSchema {
        if let viewSchema { return viewSchema }
        guard let spec else { return ObjectSchema(fileSpec: TableSpec(name: "", columns: [], primaryKey: nil)) }
        var stored = spec
        stored.columns.removeAll { DynamicSchema.isInternal($0.name) }
        if let model = ObjectSchema.knownTypes.lazy.map(ObjectSchema.of).first(where: { $0.className == spec.name && $0.tableSpec == stored }) {
            return model
        }
        return ObjectSchema(fileSpec: stored)
    }

    var table: Table {
        get throws { try context.transaction.table(tableKey) }
    }

    /// The class's schema in the current version (nil once the class was removed): read from
    /// the version's schema, not from pages.
    private var spec: TableSpec? { context.transaction.spec(of: tableKey) }

    /// The class name ("" once the class was removed).
    public var className: String { spec?.name ?? "" }

    /// The realm the object belongs to (nil in a migration).
    public var realm: Realm? { context.realm }

    /// True once the object has been deleted (or its class removed). Stops the program when
    /// that cannot be read (README, "Failed reads").
    public var isInvalidated: Bool {
        do { return try !exists() } catch { readFailed(error, reading: "the object") }
    }

    /// Whether the object exists in the current version; throws when that cannot be read.
    func exists() throws -> Bool {
        guard spec != nil else { return false }
        return try table.contains(key)
    }

    /// The names of the stored properties (linking objects and internal columns left out).
    public var propertyNames: [String] {
        guard let spec else { return [] }
        return spec.columns.map(\.name).filter { !DynamicSchema.isInternal($0) }
    }

    /// The primary-key value (nil when the class has none or the object was deleted). Stops
    /// the program when it cannot be read; `value(forProperty:)` throws instead.
    public var primaryKey: Any? {
        guard let pk = spec?.primaryKey else { return nil }
        return self[pk]
    }

    /// Stops the program for a read that failed in an accessor that cannot throw.
    func readFailed(_ error: any Error, reading what: String) -> Never {
        atollReadFailure(error, reading: "\(what) ('\(className)' with key \(key.rawValue))", in: context.transaction.database.displayName)
    }

    func column(_ name: String) throws -> (Table, Int) {
        try context.checkRead()
        let t = try table
        guard try t.contains(key) else {
            throw AtollError(.invalidatedObject, "this '\(t.name)' object has been deleted")
        }
        guard !DynamicSchema.isInternal(name), let stored = columnName.map({ $0(name) }) ?? name, let c = t.columnIndex(named: stored) else {
            let names = t.spec.columns.map(\.name).filter { !DynamicSchema.isInternal($0) }
            let suggestion = NameSuggestion.closest(to: name, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw AtollError(.invalidArgument, "'\(t.name)' has no property '\(name)'\(suggestion)")
        }
        return (t, c)
    }

    /// The value of a property (nil for nil, an unknown property or a deleted object). Stops
    /// the program when the value cannot be read (README, "Failed reads");
    /// `value(forProperty:)` throws instead.
    public subscript(property: String) -> Any? {
        get {
            do { return try value(forProperty: property) } catch let e as AtollError where e.kind == .invalidArgument || e.kind == .invalidatedObject {
                // An unknown property or a deleted object: answers, not failures.
                return nil
            } catch {
                readFailed(error, reading: "'\(property)'")
            }
        }
        set {
            do { try setValue(newValue, forProperty: property) } catch {
                context.reportError(error as? AtollError ?? AtollError(.invalidArgument, "\(error)"))
            }
        }
    }

    /// The value of a property; throws for an unknown property or a deleted object.
    public func value(forProperty property: String) throws -> Any? {
        let (t, c) = try column(property)
        let col = t.spec.columns[c]
        if col.isMap {
            // A map as a dictionary; a map of objects gives nil for a deleted object's key.
            var entries: [String: Any?] = [:]
            for e in try t.mapEntries(key, c) { entries[e.key] = swiftValue(e.value, col) }
            return entries
        }
        if col.isList {
            // A list's elements in order; a set's in set order.
            return try t.listValues(key, c).map { swiftValue($0, col) }
        }
        return swiftValue(try t.value(key, c), col)
    }

    private func swiftValue(_ v: StorageValue, _ col: ColumnSpec) -> Any? {
        if case .link(let k) = v {
            guard let target = col.linkTarget, let tk = context.transaction.tableKey(named: target) else { return nil }
            return DynamicObject(context: context, tableKey: tk, key: k)
        }
        // A mixed value's object, whose class the value names.
        if case .typedLink(let t, let k) = v { return DynamicObject(context: context, tableKey: t, key: k) }
        // A mixed value's nested collection: an array or dictionary, its objects DynamicObjects.
        if case .mixedList(let l) = v { return l.map { swiftValue($0, col) } }
        if case .mixedMap(let m) = v { return m.mapValues { swiftValue($0, col) } }
        return DynamicValues.swiftValue(v)
    }

    /// Sets a property (inside a write transaction for objects of a realm). Throws for an
    /// unknown property, a value of the wrong type, or nil for a required property.
    public func setValue(_ value: Any?, forProperty property: String) throws {
        try context.checkWrite()
        let (t, c) = try column(property)
        var writer = DynamicWriter(context: context, update: .modified)
        do {
            try writer.set(value, table: t, key: key, column: c, onlyIfChanged: false)
        } catch let e as AtollError {
            // A half-applied change (e.g. a list partly converted) must not be committed.
            if let realm = context.realm { realm.recordError(e) }
            throw e
        }
    }

    /// Adds `delta` to an integer property as a counter: the change is recorded as an
    /// addition, so increments made concurrently on synced nodes all count (docs/SYNC.md).
    /// Throws for an unknown or non-integer property, a nil value, or a sum outside the
    /// property's width.
    public func increment(_ property: String, by delta: Int = 1) throws {
        try context.checkWrite()
        let (t, c) = try column(property)
        // addInteger checks everything before it changes anything: a failure leaves no trace.
        try t.addInteger(key, c, Int64(delta))
    }

    /// Subtracts `delta` from an integer property as a counter (see `increment(_:by:)`).
    public func decrement(_ property: String, by delta: Int = 1) throws {
        try increment(property, by: -delta)
    }

    /// `Dog { id: 1, name: Rex, owner: Person(ali) }`. Text for people, so a value that cannot
    /// be read is written as the error, never as a value: `Dog(unreadable: ...)`.
    public var description: String {
        do {
            guard let spec else { return "DynamicObject(invalidated)" }
            guard try exists() else { return "\(spec.name)(deleted)" }
            let parts = try spec.columns.filter { !DynamicSchema.isInternal($0.name) }.map { c -> String in
                let v = try value(forProperty: c.name)
                if let o = v as? DynamicObject {
                    let pk = try o.spec?.primaryKey.flatMap { try o.exists() ? try o.value(forProperty: $0) : nil }
                    return "\(c.name): \(o.className)(\(pk.map { "\($0)" } ?? "#\(o.key.rawValue)"))"
                }
                return "\(c.name): \(v.map { "\($0)" } ?? "nil")"
            }
            return "\(spec.name) { \(parts.joined(separator: ", ")) }"
        } catch {
            return "\(className)(unreadable: \((error as? AtollError)?.message ?? "\(error)"))"
        }
    }
}

extension DynamicObject: Equatable {
    /// The same object of the same database (not necessarily the same instance or version).
    public static func == (a: DynamicObject, b: DynamicObject) -> Bool {
        a.key == b.key && a.tableKey == b.tableKey && a.context.transaction.database === b.context.transaction.database
    }
}

/// RealmSwift's name for the objects a migration block enumerates.
public typealias MigrationObject = DynamicObject

import AtollQuery
