public import AtollStorage
import Foundation

extension QuerySchema {
    /// The query schema of a transaction's tables, made once per schema (every transaction
    /// reading the same schema shares it).
    public static func of(_ transaction: Transaction) -> QuerySchema {
        transaction.schemaDerivedValues.value(QuerySchema.self) { QuerySchema(transaction: transaction) }
    }

    /// The query schema of every table in a transaction. A property's `columnIndex` is its column
    /// in the table (for linking objects: the origin property's column in the origin table).
    public init(transaction: Transaction) {
        var classes: [QueryClassSchema] = []
        for spec in transaction.tableSpecs {
            var properties: [QueryProperty] = []
            for (c, col) in spec.columns.enumerated() {
                var property = QueryProperty(
                    name: col.name, type: QueryValueType(col.type), isOptional: col.isNullable || (col.type == .link && !col.isList),
                    isList: col.isList, objectClassName: col.linkTarget,
                    isIndexed: col.isIndexed || col.name == spec.primaryKey, columnIndex: c)
                property.isMap = col.isMap
                property.isSet = col.isSet
                properties.append(property)
            }
            for l in spec.linkingObjects {
                let originColumn = transaction.tableKey(named: l.originTable).flatMap { transaction.spec(of: $0) }?.columnIndex(named: l.originProperty) ?? -1
                properties.append(.linkingObjects(name: l.name, originClassName: l.originTable, originPropertyName: l.originProperty, columnIndex: originColumn))
            }
            classes.append(QueryClassSchema(name: spec.name, properties: properties, primaryKey: spec.primaryKey))
        }
        self.init(classes)
    }
}

/// The schema of a transaction's tables that also accepts arguments written as in data files
/// (see ``QuerySchemaProvider/convertArgument(_:toType:objectClassName:)``): a link compared
/// with the target's primary-key value, a UUID or ObjectId as a string. A primary key that no
/// object has matches nothing.
public struct DataFileArgumentSchema: QuerySchemaProvider {
    let schema: QuerySchema
    let transaction: Transaction

    public init(transaction: Transaction) {
        self.transaction = transaction
        schema = QuerySchema.of(transaction)
    }

    public func queryClass(named name: String) -> QueryClassSchema? { schema.queryClass(named: name) }

    public func convertArgument(_ value: QueryValue, toType type: QueryValueType, objectClassName: String?) throws -> QueryValue? {
        switch (type, value) {
        case (.uuid, .string(let s)):
            return UUID(uuidString: s).map { .uuid($0) }
        case (.objectId, .string(let s)):
            return (try? ObjectId(string: s)).map { .objectId($0) }
        case (.object, _):
            guard let className = objectClassName, let table = try transaction.table(named: className),
                  let pkColumn = table.spec.primaryKeyIndex else { return nil }
            let pkType = QueryValueType(table.spec.columns[pkColumn].type)
            let key: QueryValue
            switch (pkType, value) {
            case (.int, .int), (.string, .string), (.uuid, .uuid), (.objectId, .objectId): key = value
            case (.int, .double(let d)) where d.rounded() == d && abs(d) < 9.2e18: key = .int(Int64(d))
            case (.uuid, .string), (.objectId, .string):
                guard let converted = try convertArgument(value, toType: pkType, objectClassName: nil) else { return nil }
                key = converted
            default: return nil
            }
            guard let stored = key.storageValue else { return nil }
            if let found = try table.find(primaryKey: stored) { return .object(className: className, key: found.rawValue) }
            // No such object: a key no object has, so `==` matches nothing and `!=` everything.
            var absent = UInt64.max
            while try table.contains(ObjectKey(absent)) { absent -= 1 }
            return .object(className: className, key: absent)
        default:
            return nil
        }
    }
}

extension QueryValueType {
    init(_ t: ColumnType) {
        switch t {
        case .bool: self = .bool
        case .int: self = .int
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .binary: self = .data
        case .timestamp: self = .date
        case .uuid: self = .uuid
        case .objectId: self = .objectId
        case .link: self = .object
        case .decimal128: self = .decimal128
        case .mixed: self = .mixed
        }
    }
}

extension QueryValue {
    /// The query value of a stored value (`linkTarget`: the class of a link's target; `table`:
    /// the table it was read from, which names the class of a mixed value's typed link; without
    /// it a typed link's class reads as "").
    init(_ v: StorageValue, linkTarget: String?, in table: Table? = nil) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .float(let f): self = .float(f)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .binary(let b): self = .data(b)
        case .timestamp(let t): self = .timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds)
        case .uuid(let u): self = .uuid(u)
        case .objectId(let o): self = .objectId(o)
        case .link(let k): self = .object(className: linkTarget ?? "", key: k.rawValue)
        case .decimal128(let d): self = .decimal128(d)
        case .typedLink(let t, let k): self = .object(className: table?.tableName(t) ?? "", key: k.rawValue)
        case .mixedList(let l): self = .list(l.map { QueryValue($0, linkTarget: nil, in: table) })
        case .mixedMap(let m): self = .dictionary(m.mapValues { QueryValue($0, linkTarget: nil, in: table) })
        }
    }

    /// The stored form, for index lookups (nil for values that have none).
    var storageValue: StorageValue? {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .float(let f): .float(f)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .data(let b): .binary(b)
        case .timestamp(let s, let n): .timestamp(Timestamp(seconds: s, nanoseconds: n))
        case .uuid(let u): .uuid(u)
        case .objectId(let o): .objectId(o)
        case .object(_, let key): .link(ObjectKey(key))
        case .decimal128(let d): .decimal128(d)
        case .list, .dictionary: nil
        }
    }

    /// Timestamps normalized to non-negative nanoseconds, so (seconds, nanoseconds) orders.
    var normalizedTimestamp: Timestamp? {
        guard case .timestamp(let s, let n) = self else { return nil }
        return Timestamp(seconds: s, nanoseconds: n)
    }
}
