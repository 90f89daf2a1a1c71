@_spi(Reflection) import Swift
import Foundation

// Codable models, as in RealmSwift: `final class Dog: Object, Codable { @Persisted var name = "" }`
// gets Swift's synthesized `init(from:)` and `encode(to:)`, which decode and encode each
// `@Persisted` wrapper (`_name`) under the property's name, as the property's value.
//
// Encoding: a wrapper keeps only its index, not its value, so it needs its object. For classes
// that are Encodable, the object's init stores the object's address in each of its wrappers
// (`owner`), found once per class from the class's field offsets (`_forEachField`). Only
// unmanaged objects encode: a managed object's wrappers throw, as in RealmSwift (encode the
// values yourself, or `realm.dumpJSON`).
//
// Decoding: Swift runs the synthesized initializer as: every property's default (each wrapper
// pushes its default on the init stack, InitContext), then each decoded wrapper assigned over
// the default one, then `Object.init`. A decoded wrapper cannot know its position among the
// object's properties, so it keeps its value in `InitContext.decoded` and a negative index
// naming it there; `Object.init` then finds the decoded wrappers through the field offsets,
// moves their values into place and gives them their property's index. Nested objects (links,
// lists of objects) are decoded, and finished, inside their property's decoding, so the
// decoded values form a stack like the init stack.

/// Where a class's `@Persisted` wrappers are inside its objects.
struct CodableLayout {
    struct Field {
        /// Byte offsets in the object of the wrapper's index and owner fields.
        let rawIndexOffset: Int
        let ownerOffset: Int
        let name: String
    }

    let fields: [Field]
    let isEncodable: Bool

    /// The layout of `type` when it is a Codable model (nil otherwise).
    static func make(for type: Object.Type) -> CodableLayout? {
        let isEncodable = type is any Encodable.Type
        guard isEncodable || type is any Decodable.Type else { return nil }
        var fields: [Field] = []
        _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
            guard let wrapper = fieldType as? any PersistedLayout.Type else { return true }
            let label = String(cString: name)
            fields.append(Field(rawIndexOffset: offset + wrapper._rawIndexOffset, ownerOffset: offset + wrapper._ownerOffset,
                                name: label.hasPrefix("_") ? String(label.dropFirst()) : label))
            return true
        }
        return CodableLayout(fields: fields, isEncodable: isEncodable)
    }

    /// Called by `Object.init` for an unmanaged object of a Codable model: moves decoded values
    /// into place and records the object in its wrappers.
    func finishInit(of object: Object, context: InitContext) {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        var lowestDecoded = Int.max
        var schema: ObjectSchema?
        for field in fields {
            let rawIndex = Int((base + field.rawIndexOffset).load(as: Int32.self))
            if rawIndex < 0 {
                let slot = -rawIndex - 1
                guard slot < context.decoded.count else { continue }
                if schema == nil { schema = ObjectSchema.of(type(of: object)) }
                guard let i = schema?.index(of: field.name), i < object._values.count else { continue }
                object._values[i] = context.decoded[slot]
                (base + field.rawIndexOffset).storeBytes(of: Int32(truncatingIfNeeded: object._indexBase + i), as: Int32.self)
                lowestDecoded = Swift.min(lowestDecoded, slot)
            }
            if isEncodable { (base + field.ownerOffset).storeBytes(of: Optional(base), as: UnsafeMutableRawPointer?.self) }
        }
        guard lowestDecoded != .max else { return }
        context.decoded.removeSubrange(lowestDecoded...)
        // A decoded object with no object around it in construction: what is left was left by
        // decodes that failed part way (nobody will claim it). Not done for objects that
        // decoded nothing: schema probes run while a decoded object's values are pending.
        if context.count == 0, !context.decoded.isEmpty { context.decoded.removeAll(keepingCapacity: true) }
    }
}

/// The offsets of a `Persisted` wrapper's fields.
protocol PersistedLayout {
    static var _rawIndexOffset: Int { get }
    static var _ownerOffset: Int { get }
}

extension Persisted: PersistedLayout {
    static var _rawIndexOffset: Int { MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.rawIndex) ?? 0 }
    static var _ownerOffset: Int { MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.owner) ?? 0 }
}

extension InitContext {
    /// The Codable layout of `object`'s class, nil when it is not Codable (cached per thread).
    @inline(__always)
    func codableLayout(of object: Object) -> CodableLayout? {
        let id = ObjectIdentifier(type(of: object))
        if id == lastLayoutClass { return lastLayout }
        let layout: CodableLayout?
        if let known = codableLayouts[id] {
            layout = known
        } else {
            layout = CodableLayout.make(for: type(of: object))
            codableLayouts[id] = .some(layout)
        }
        lastLayoutClass = id
        lastLayout = layout
        return layout
    }

    /// Keeps a decoded value until its object's init claims it; returns the wrapper's index.
    func pushDecoded(_ value: any PersistableValue) -> Int32 {
        decoded.append(value)
        return -Int32(decoded.count)
    }
}

extension Persisted {
    /// A wrapper for a decoded value (see above).
    init(decoded value: Value) {
        rawIndex = InitContext.current.pushDecoded(value)
        options = PersistedOptions()
    }
}

extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value.
    public init(from decoder: any Decoder) throws {
        self.init(decoded: try decoder.singleValueContainer().decode(Value.self))
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the property's value. Only unmanaged objects encode with Swift's synthesized
    /// `encode(to:)` (as in RealmSwift): a managed one throws `EncodingError.invalidValue`.
    public func encode(to encoder: any Encoder) throws {
        guard let owner else { throw Self.managedEncodingError(encoder) }
        let object = Unmanaged<Object>.fromOpaque(owner).takeUnretainedValue()
        guard object._managed == nil else { throw Self.managedEncodingError(encoder) }
        var container = encoder.singleValueContainer()
        try container.encode(object._getValue(Int(rawIndex) - object._indexBase, as: Value.self))
    }

    private static func managedEncodingError(_ encoder: any Encoder) -> EncodingError {
        EncodingError.invalidValue(Value.self, .init(codingPath: encoder.codingPath, debugDescription:
            "Only unmanaged Realm objects can be encoded using automatic Codable synthesis. You must explicitly define encode(to:) on your model class to support managed Realm objects."))
    }
}

extension KeyedDecodingContainer {
    /// An optional property missing from the input decodes as nil (Swift's synthesized
    /// `init(from:)` calls this for `@Persisted var x: T?`).
    public func decode<V: Decodable & ExpressibleByNilLiteral>(_ type: Persisted<V>.Type, forKey key: Key) throws -> Persisted<V> {
        if let decoded = try decodeIfPresent(type, forKey: key) { return decoded }
        return Persisted(decoded: V(nilLiteral: ()))
    }
}

// MARK: collections

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the decoded elements (an array in the input).
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { storage.append(try container.decode(Element.self)) }
    }
}

extension List: Encodable where Element: Encodable {
    /// The elements, as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension Results: Encodable where Element: Encodable {
    /// The objects, as an array (each encoded by its own `encode(to:)`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension LinkingObjects: Encodable where Element: Encodable {
    /// The linking objects, as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension AnyRealmCollection: Encodable where Element: Encodable {
    /// The objects, as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}
