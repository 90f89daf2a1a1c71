import Foundation
public import AtollStorage

/// The transaction a dynamic object reads and writes through.
final class DynamicContext {
    var transaction: Transaction
    init(_ transaction: Transaction) { self.transaction = transaction }
}

/// An object of a class known only at run time: values by property name.
///
/// ```swift
/// migration.enumerateObjects(ofType: "Person") { old, new in
///     new?["fullName"] = "\(old?["firstName"] as? String ?? "") \(old?["lastName"] as? String ?? "")"
/// }
/// ```
/// Values are Swift values (Int, Double, String, Date, Data, UUID, ObjectId, Bool...), links
/// are `DynamicObject`s, lists are arrays.
public final class DynamicObject: CustomStringConvertible {
    let context: DynamicContext
    let tableKey: TableKey
    public let key: ObjectKey
    /// Maps a property name of this view to the name of its column in the table (nil: absent).
    let columnName: (String) -> String?

    init(context: DynamicContext, tableKey: TableKey, key: ObjectKey, columnName: @escaping (String) -> String? = { $0 }) {
        self.context = context
        self.tableKey = tableKey
        self.key = key
        self.columnName = columnName
    }

    var table: Table {
        get throws { try context.transaction.table(tableKey) }
    }

    /// The class name.
    public var className: String { (try? table.name) ?? "" }

    private func column(_ name: String) throws -> (Table, Int) {
        let t = try table
        guard let stored = columnName(name), let c = t.columnIndex(named: stored) else {
            throw AtollError(.invalidArgument, "'\(t.name)' has no property '\(name)'")
        }
        return (t, c)
    }

    /// The value of a property (nil for nil or an unknown property).
    public subscript(property: String) -> Any? {
        get { try? value(forProperty: property) }
        set { try? setValue(newValue, forProperty: property) }
    }

    public func value(forProperty property: String) throws -> Any? {
        let (t, c) = try column(property)
        let col = t.spec.columns[c]
        if col.isList {
            return try t.listValues(key, c).map { dynamicValue($0, col) }
        }
        return dynamicValue(try t.value(key, c), col)
    }

    private func dynamicValue(_ v: StorageValue, _ col: ColumnSpec) -> Any? {
        switch v {
        case .null: return nil
        case .bool(let b): return b
        case .int(let i): return Int(truncatingIfNeeded: i)
        case .float(let f): return f
        case .double(let d): return d
        case .string(let s): return s
        case .binary(let b): return Data(b)
        case .timestamp(let t): return Date(t)
        case .uuid(let u): return u
        case .objectId(let o): return o
        case .link(let k):
            guard let target = col.linkTarget, let tk = context.transaction.tableKey(named: target) else { return nil }
            return DynamicObject(context: context, tableKey: tk, key: k)
        }
    }

    /// Sets a property from a Swift value (links: a DynamicObject or nil; lists: an array).
    public func setValue(_ value: Any?, forProperty property: String) throws {
        let (t, c) = try column(property)
        let col = t.spec.columns[c]
        if col.isList {
            let items = flattenOptional(value).flatMap { ObjectWriter.array($0) } ?? []
            try t.setList(key, c, try items.map { try storageValue($0, col) })
        } else {
            try t.set(key, c, try storageValue(value, col))
        }
    }

    func storageValue(_ value: Any?, _ col: ColumnSpec) throws -> StorageValue {
        guard let value = flattenOptional(value) else { return .null }
        if col.type == .link {
            if let o = value as? DynamicObject { return .link(o.key) }
            if let o = value as? Object, let m = o._managed { return .link(m.key) }
            throw AtollError(.typeMismatch, "property '\(col.name)' needs an object, not \(ValueConversion.describe(value))")
        }
        guard let v = ValueConversion.scalar(value, type: col.type) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for \(col.type) property '\(col.name)'")
        }
        return v
    }

    public var description: String { "\(className)(\(key.rawValue))" }
}

public typealias MigrationObject = DynamicObject
