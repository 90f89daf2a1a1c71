import Foundation
import AtollStorage

// Collections nested in a mixed value (Realm 10.51's `AnyRealmValue.list` and `.dictionary`).
//
// In storage the whole nested tree is one mixed value (StorageValue.mixedList / .mixedMap, one
// tagged encoding). Read from a managed object, a nested collection is a `List` or `Map` whose
// elements are a copy of the stored ones and which knows where it lives (`NestedMixedLink`: the
// object, the property, the element of a list or map property, and the path of indices and keys
// below it). Every change to its elements writes the collection back there, inside the realm's
// write transaction: the stored value is read, the collection at the path replaced, and the
// value written again, so the owning object's observers see the property change. A change costs
// a rewrite of the property's whole value, which is what one mixed value is.

/// Where a collection nested in a managed mixed value lives.
struct NestedMixedLink {
    /// The mixed value that holds the collection: a property, an element of a list, or a value of a map.
    enum Root: Equatable {
        case property
        case listElement(Int)
        case mapValue(String)
    }

    /// One step down from a collection to one of its elements.
    enum Step: Equatable {
        case index(Int)
        case key(String)
    }

    let realm: Realm
    let owner: ClassBinding
    let key: ObjectKey
    let column: Int
    let root: Root
    var path: [Step] = []

    /// The link of the element at `step` of this collection.
    func appending(_ step: Step) -> NestedMixedLink {
        var link = self
        link.path.append(step)
        return link
    }

    /// A nested collection read from an element of a list, or a value of a map, of mixed values:
    /// one that writes back to it.
    static func element(_ v: StorageValue, realm: Realm, owner: ClassBinding, key: ObjectKey, column: Int, root: Root) -> AnyRealmValue {
        AnyRealmValue.nested(v, realm: realm, link: NestedMixedLink(realm: realm, owner: owner, key: key, column: column, root: root))
    }

    /// `element(_:realm:owner:key:column:root:)` for a value of a managed map.
    static func element(_ v: StorageValue, of m: ManagedCollection, root: Root) -> AnyRealmValue {
        element(v, realm: m.realm, owner: m.owner, key: m.key, column: m.column, root: root)
    }

    /// Whether both are the same collection of the same object, read in the same realm.
    static func same(_ a: NestedMixedLink?, _ b: NestedMixedLink?) -> Bool {
        guard let a, let b else { return false }
        return a.realm === b.realm && a.owner.tableKey == b.owner.tableKey && a.key == b.key && a.column == b.column
            && a.root == b.root && a.path == b.path
    }

    /// Writes `collection` (the nested `.list` or `.dictionary` that changed) to where it lives.
    func write(_ collection: AnyRealmValue) {
        realm.verifyThread()
        if realm.isFrozen { atollProgrammerError("cannot change a collection nested in an AnyRealmValue of a frozen object (thaw() it first)") }
        guard realm.isInWriteTransaction else {
            atollProgrammerError("changing a collection nested in a managed AnyRealmValue must happen inside a write transaction")
        }
        realm.performWrite("change a nested collection") { w in
            var writer = ObjectWriter(realm: realm, transaction: w, update: .error)
            let new = try writer.nestedMixedValue(collection, depth: path.count)
            let t = try realm.table(owner)
            switch root {
            case .property:
                try t.set(key, column, try Self.replacing(try t.value(key, column), path[...], with: new))
            case .listElement(let i):
                let values = try t.listValues(key, column)
                guard i < values.count else { throw Self.gone() }
                try t.listSet(key, column, at: i, try Self.replacing(values[i], path[...], with: new))
            case .mapValue(let k):
                guard let v = try t.mapValue(key, column, key: k) else { throw Self.gone() }
                try t.mapSet(key, column, key: k, try Self.replacing(v, path[...], with: new))
            }
            writer.finish()
        }
    }

    /// `value` with the collection at `path` replaced by `new`.
    private static func replacing(_ value: StorageValue, _ path: ArraySlice<Step>, with new: StorageValue) throws -> StorageValue {
        guard let step = path.first else {
            guard value.isNestedCollection else { throw gone() }
            return new
        }
        switch (value, step) {
        case (.mixedList(var l), .index(let i)) where i >= 0 && i < l.count:
            l[i] = try replacing(l[i], path.dropFirst(), with: new)
            return .mixedList(l)
        case (.mixedMap(var m), .key(let k)):
            guard let e = m[k] else { throw gone() }
            m[k] = try replacing(e, path.dropFirst(), with: new)
            return .mixedMap(m)
        default:
            throw gone()
        }
    }

    private static func gone() -> AtollError {
        AtollError(.invalidatedObject, "the nested collection no longer exists: the mixed value that held it was changed")
    }
}

extension AnyRealmValue {
    /// The value of a stored one, nested collections as `List`s and `Map`s that write back to
    /// `link` (copies without one).
    static func nested(_ v: StorageValue, realm: Realm?, link: NestedMixedLink?) -> AnyRealmValue {
        switch v {
        case .mixedList(let elements):
            let list = List<AnyRealmValue>()
            list.storage = elements.enumerated().map { i, e in nested(e, realm: realm, link: link?.appending(.index(i))) }
            list.nestedLink = link
            return .list(list)
        case .mixedMap(let entries):
            let map = Map<String, AnyRealmValue>()
            var storage: [String: AnyRealmValue] = [:]
            for (k, e) in entries { storage[k] = nested(e, realm: realm, link: link?.appending(.key(k))) }
            map.storage = storage
            map.nestedLink = link
            return .dictionary(map)
        default:
            return AnyRealmValue(v, realm: realm) ?? .none
        }
    }

    /// A Swift array or dictionary given for a mixed property (`create(_:value:)`, dynamic and
    /// KVC setters) as a nested `.list` or `.dictionary`, its elements converted the same way;
    /// nil when `value` is neither. Throws for an element no mixed value holds, and for nesting
    /// deeper than `StorageValue.mixedNestingMax`.
    static func nestedInput(_ value: Any, depth: Int = 0) throws -> AnyRealmValue? {
        if Swift.type(of: value) == [UInt8].self || value is Data || value is String { return nil }
        if let array = value as? [Any] {
            guard depth < StorageValue.mixedNestingMax else { throw tooDeep() }
            return .fromArray(try array.map { try element($0, depth: depth) })
        }
        if let dictionary = value as? [String: Any] {
            guard depth < StorageValue.mixedNestingMax else { throw tooDeep() }
            var entries: [String: AnyRealmValue] = [:]
            for (k, e) in dictionary { entries[k] = try element(e, depth: depth) }
            return .fromDictionary(entries)
        }
        return nil
    }

    private static func element(_ value: Any, depth: Int) throws -> AnyRealmValue {
        guard let value = flattenOptional(value) else { return .none }
        if let v = value as? AnyRealmValue { return v }
        if let o = value as? Object { return .object(o) }
        if let nested = try nestedInput(value, depth: depth + 1) { return nested }
        if let stored = ValueConversion.scalar(value, type: .mixed), let v = AnyRealmValue(stored) { return v }
        throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) in a nested collection of an AnyRealmValue")
    }

    static func tooDeep() -> AtollError {
        AtollError(.limitExceeded, "collections nested in an AnyRealmValue may be at most \(StorageValue.mixedNestingMax) levels deep")
    }
}

extension ObjectWriter {
    /// The stored form of a nested `.list` or `.dictionary` (`depth` collections below the
    /// property's value); unmanaged objects in it are added, as `mixedValue` adds them.
    mutating func nestedMixedValue(_ v: AnyRealmValue, depth: Int) throws -> StorageValue {
        switch v {
        case .list(let l):
            guard depth < StorageValue.mixedNestingMax else { throw AnyRealmValue.tooDeep() }
            var out: [StorageValue] = []
            for e in Array(l) { out.append(try nestedElement(e, depth: depth)) }
            return .mixedList(out)
        case .dictionary(let m):
            guard depth < StorageValue.mixedNestingMax else { throw AnyRealmValue.tooDeep() }
            var out: [String: StorageValue] = [:]
            for (k, e) in m.asKeyValueSequence() {
                try MapKeyRules.validate(k)
                out[k] = try nestedElement(e, depth: depth)
            }
            return .mixedMap(out)
        default:
            return try mixedValue(v)
        }
    }

    private mutating func nestedElement(_ e: AnyRealmValue, depth: Int) throws -> StorageValue {
        switch e {
        case .list, .dictionary: try nestedMixedValue(e, depth: depth + 1)
        default: try mixedValue(e)
        }
    }

    /// The stored form of a nested collection given for mixed property `p` (an AnyRealmValue
    /// `.list`/`.dictionary`, or a Swift array or dictionary); nil for any other value or property.
    /// A frame of its own, off the recursion of nested input (see `mixedObjectValue`).
    @inline(never)
    mutating func nestedMixedInput(_ value: Any?, property p: PropertyInfo) throws -> StorageValue? {
        guard p.atollType.columnType == .mixed, let value = flattenOptional(value) else { return nil }
        if let v = value as? AnyRealmValue {
            switch v {
            case .list, .dictionary: return try nestedMixedValue(v, depth: 0)
            default: return nil
            }
        }
        guard let v = try AnyRealmValue.nestedInput(value) else { return nil }
        return try nestedMixedValue(v, depth: 0)
    }
}

extension List {
    /// Writes the elements back to the mixed value the list is nested in.
    func nestedChanged() {
        guard let link = nestedLink, let list = self as? List<AnyRealmValue> else { return }
        link.write(.list(list))
    }
}

extension Map {
    /// Writes the entries back to the mixed value the map is nested in.
    func nestedChanged() {
        guard let link = nestedLink, let map = self as? Map<String, AnyRealmValue> else { return }
        link.write(.dictionary(map))
    }
}
