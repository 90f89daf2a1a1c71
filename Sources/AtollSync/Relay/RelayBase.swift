package import AtollStorage
import Crypto

// A realm's compacted history: the merged effect of every changeset trimmed from the log, kept
// so that a node that never saw those changesets (a new node, or one forgotten after
// `peerExpiryMilliseconds`) can still get the realm's data. It is the same state the merge rules
// define, kept without a schema, addressed by (class, primary key, property), with every stamp:
//
//   relay.base.objects  object key                        -> u8 flags (1: latest, 2: deleted),
//                                                            [latest stamp], [deleted stamp],
//                                                            tagged primary key
//   relay.base.parts    object key ++ u8 kind ++ u8 property length ++ property ++ by kind:
//                        1 field:      nothing             -> stamp, value
//                        2 increment:  u64 BE hlc, 16-byte node, u32 BE index -> zigzag delta
//                        3 element:    u64 BE lamport, 16-byte node
//                                                          -> u8 flags (1: erased, 2: has parent,
//                                                            4: removal stamp known),
//                                                            [parent lamport, parent node], insert
//                                                            stamp, value stamp, [removal stamp],
//                                                            [value]
//                        4 set tag:    32-byte SHA-256 of the value's tagged encoding, u64 BE hlc,
//                                      16-byte node, u32 BE index (the add's stamp)
//                                                          -> u8 flags (1: removed), value
//                        5 map entry:  the key's UTF-8 bytes
//                                                          -> stamp, u8 flags (1: removed), [value]
//                        6 embedded:   (property length 0) the object key of an object whose
//                                      primary key is an embedded path (EmbeddedPath) with this
//                                      object as its parent -> nothing
//                                      (the index of the parent's embedded objects, at any depth,
//                                      for collecting them with it; never sent in a snapshot)
//   relay.base.deleted  u32 BE realm ++ stamp (u64 BE hlc, 16-byte node, u32 BE index) ++ key
//                                                          -> u8 0: a delete, key an object key
//                                                             u8 1, u16 BE n: a list element's
//                                                                   removal, key its part key
//                                                                   (of an object key of n bytes)
//                                                             u8 2, u16 BE n: a map key's
//                                                                   removal, key its part key
//                       (the relay file's index of tombstones and removed list elements, by
//                       stamp, for collecting them)
//   object key: u32 BE realm ++ u8 class length ++ class ++ primary key (tagged encoding if at
//               most 64 bytes, else 0xFF ++ SHA-256 of it)
//   stamp in values: varint hlc, 16-byte node, varint index
//
// Folding drops what can no longer matter (property values and increments older than a delete,
// increments older than the property's write) and keeps what can (tombstones, removed list
// elements, for the structure of later inserts; removed set tags, so that their adds stay
// removed; map removals newer than any write). A snapshot sends it back as instructions with
// their own stamps (body format 2); applying them merges exactly like the changesets would have.
//
// Collecting (`collectDeleted`) drops what folding keeps once nothing can need it, once the log
// is trimmed through the applied bound that came with the realm's deletion point: an object
// deleted below the point that holds no later write, with every part left under it; a list
// element removed below the point that is a leaf of the list's tree or a link of a removed chain
// (`ListTree.collect`, as on the nodes); a map key removed below the point and not written
// since. Every changeset stamped before the point is then folded already, and every changeset
// still to come is stamped after it and was made by a node that had merged those deletes and
// removals (docs/SYNC.md, "The stability point"): none can be voided by the tombstone or name
// the element, and a write of the map key wins over the removal anyway, so they decide no merge
// any more, as on the nodes. An object that holds embedded objects goes with their records (found through its
// `embedded` parts; none may hold a write after its delete, which on the nodes is a write of
// it), and a removed element of a list of embedded objects with the records of the objects in
// it (every write inside a removed element is void).

/// The trees of a compacted history, read: a transaction of the relay's file, or an overlay a
/// shared store fills from its database (`RelayBaseOverlay`).
package protocol RelayBaseReading: AnyObject {
    func internalValue(_ tree: String, key: [UInt8]) throws -> [UInt8]?
    func forEachInternalEntry(_ tree: String, from: [UInt8], prefix: [UInt8],
                              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws
}

/// The trees of a compacted history, written (inside a trim's transaction).
package protocol RelayBaseWriting: RelayBaseReading {
    func putInternal(_ tree: String, key: [UInt8], value: [UInt8]) throws
    @discardableResult func deleteInternal(_ tree: String, key: [UInt8]) throws -> Bool
    /// Called before the records of the object with key `objectKey` (in `objects`, and the
    /// `parts` that start with it) are read or written: an overlay loads them then.
    func willTouchObject(_ objectKey: [UInt8]) throws
    /// Whether folding keeps the index of tombstones (`RelayBase.deleted`) that collecting
    /// reads: the relay file does; a store whose trees live in a database does not, and keeps
    /// its tombstones.
    var indexesDeletions: Bool { get }
}

extension Transaction: RelayBaseReading {}

extension WriteTransaction: RelayBaseWriting {
    package func willTouchObject(_ objectKey: [UInt8]) throws {}
    package var indexesDeletions: Bool { true }
}

package enum RelayBase {
    package static let objects = "relay.base.objects"
    package static let parts = "relay.base.parts"
    package static let deleted = "relay.base.deleted"
    /// Objects read for one snapshot chunk at most.
    package static let chunkObjectsMax = 64

    struct Object {
        var latest: Stamp?
        var deleted: Stamp?
        var primaryKey: StorageValue
    }

    enum Kind: UInt8 { case field = 1, increment = 2, element = 3, setTag = 4, mapEntry = 5, embedded = 6 }

    struct Element {
        var parent: ElementID?
        var inserted: Stamp
        var valueStamp: Stamp
        var erased: Bool
        var value: SyncValue
        /// The stamp of the removal (or delete of the object) that erased it, when known (not
        /// for elements folded before relays kept it).
        var removed: Stamp?
    }

    package static func objectKey(_ realm: UInt32, _ className: String, _ pk: StorageValue) -> [UInt8] {
        var w = ByteWriter(capacity: 32)
        w.u32BigEndian(realm)
        w.u8(UInt8(className.utf8.count))
        w.append(Array(className.utf8))
        var p = ByteWriter(capacity: 16)
        pk.encode(into: &p)
        if p.count <= 64 { w.append(p.bytes) } else { w.u8(0xFF); w.append(Array(SHA256.hash(data: p.bytes))) }
        return w.bytes
    }

    static func partPrefix(_ object: [UInt8], _ kind: Kind, _ property: String) -> [UInt8] {
        object + [kind.rawValue, UInt8(property.utf8.count)] + Array(property.utf8)
    }

    /// The embedded path a primary key spells, if it is one (only the canonical spelling
    /// parses; an ordinary key that happens to spell one is told apart by its class, which is
    /// not embedded in the realm's schema).
    static func embeddedPath(_ pk: StorageValue) -> EmbeddedPath? {
        guard case .string(let s) = pk, let first = s.utf8.first, first >= 0x30, first <= 0x39 else { return nil }
        return EmbeddedPath(ifSpelledBy: s)
    }

    /// The key of the part that indexes object `key` (whose primary key is `path`) under its
    /// parent.
    static func embeddedIndexKey(realm: UInt32, _ path: EmbeddedPath, _ key: [UInt8]) -> (parent: [UInt8], part: [UInt8]) {
        let parent = objectKey(realm, path.parentClass, path.parentPrimaryKey)
        return (parent, partPrefix(parent, .embedded, "") + key)
    }

    private static func stampKey(_ s: Stamp) -> [UInt8] {
        var w = ByteWriter(capacity: 28)
        w.u64BigEndian(s.hlc)
        w.append(s.node.bytes)
        w.u32BigEndian(s.index)
        return w.bytes
    }

    private static func setTagKey(_ prefix: [UInt8], _ v: SyncValue, _ tag: Stamp) -> [UInt8] {
        var w = ByteWriter(capacity: 32)
        v.encode(into: &w)
        return prefix + Array(SHA256.hash(data: w.bytes)) + stampKey(tag)
    }

    /// The stamp a key holds at byte `at` (`stampKey`'s encoding).
    private static func stamp(inKey k: UnsafeRawBufferPointer, at: Int) throws -> Stamp {
        guard at >= 0, k.count >= at + 28, let node = NodeID(bytes: UnsafeRawBufferPointer(rebasing: k[(at + 8)..<(at + 24)])) else {
            throw AtollError.corrupted("relay base: a key of \(k.count) bytes holds no stamp at \(at)")
        }
        return Stamp(hlc: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: at, as: UInt64.self)), node: node,
                     index: UInt32(bigEndian: k.loadUnaligned(fromByteOffset: at + 24, as: UInt32.self)))
    }

    /// The stamp at the end of a key (of an increment or a set tag).
    private static func stampFromKey(_ k: UnsafeRawBufferPointer) throws -> Stamp { try stamp(inKey: k, at: k.count - 28) }

    /// The element id a key holds at byte `at` (`elementKey`'s encoding).
    private static func elementID(inKey k: UnsafeRawBufferPointer, at: Int) throws -> ElementID {
        guard at >= 0, k.count >= at + 24, let node = NodeID(bytes: UnsafeRawBufferPointer(rebasing: k[(at + 8)..<(at + 24)])) else {
            throw AtollError.corrupted("relay base: a key of \(k.count) bytes holds no element id at \(at)")
        }
        return ElementID(lamport: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: at, as: UInt64.self)), node: node)
    }

    /// A map entry: the stamp that decides the key and its value (nil: removed).
    private static func readMapEntry(_ v: UnsafeRawBufferPointer) throws -> (Stamp, SyncValue?) {
        var r = ByteReader(v, context: "relay base map entry")
        let s = try readStamp(&r)
        let flags = try r.u8()
        return (s, flags & 1 != 0 ? nil : try SyncValue.decode(from: &r))
    }

    private static func elementKey(_ e: ElementID) -> [UInt8] {
        var w = ByteWriter(capacity: 24)
        w.u64BigEndian(e.lamport)
        w.append(e.node.bytes)
        return w.bytes
    }

    private static func write(_ s: Stamp, _ w: inout ByteWriter) {
        w.varint(s.hlc)
        w.append(s.node.bytes)
        w.varint(UInt64(s.index))
    }

    private static func readStamp(_ r: inout ByteReader) throws -> Stamp {
        let hlc = try r.varint()
        guard let node = NodeID(bytes: try r.bytes(16)) else { throw AtollError.corrupted("relay base: bad node") }
        return Stamp(hlc: hlc, node: node, index: UInt32(try r.length(max: Int(UInt32.max))))
    }

    // MARK: records

    static func encode(_ o: Object) -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.u8((o.latest != nil ? 1 : 0) | (o.deleted != nil ? 2 : 0))
        if let l = o.latest { write(l, &w) }
        if let d = o.deleted { write(d, &w) }
        o.primaryKey.encode(into: &w)
        return w.bytes
    }

    static func decodeObject(_ v: UnsafeRawBufferPointer) throws -> Object {
        var r = ByteReader(v, context: "relay base object")
        let flags = try r.u8()
        let latest = flags & 1 != 0 ? try readStamp(&r) : nil
        let deleted = flags & 2 != 0 ? try readStamp(&r) : nil
        return Object(latest: latest, deleted: deleted, primaryKey: try StorageValue.decode(from: &r))
    }

    static func encode(_ e: Element) -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        let removed = e.erased ? e.removed : nil
        w.u8((e.erased ? 1 : 0) | (e.parent != nil ? 2 : 0) | (removed != nil ? 4 : 0))
        if let p = e.parent { w.varint(p.lamport); w.append(p.node.bytes) }
        write(e.inserted, &w)
        write(e.valueStamp, &w)
        if let removed { write(removed, &w) }
        if !e.erased { e.value.encode(into: &w) }
        return w.bytes
    }

    static func decodeElement(_ v: UnsafeRawBufferPointer) throws -> Element {
        var r = ByteReader(v, context: "relay base element")
        let flags = try r.u8()
        var parent: ElementID?
        if flags & 2 != 0 {
            let lamport = try r.varint()
            guard let node = NodeID(bytes: try r.bytes(16)) else { throw AtollError.corrupted("relay base: bad node") }
            parent = ElementID(lamport: lamport, node: node)
        }
        let inserted = try readStamp(&r)
        let valueStamp = try readStamp(&r)
        let erased = flags & 1 != 0
        let removed = flags & 4 != 0 ? try readStamp(&r) : nil
        return Element(parent: parent, inserted: inserted, valueStamp: valueStamp, erased: erased,
                       value: erased ? .null : try SyncValue.decode(from: &r), removed: removed)
    }

    // MARK: folding

    /// The keys of the objects `cs` touches (what folding it reads and writes), for a store that
    /// loads them in one go.
    package static func objectKeys(of cs: Changeset, realm: UInt32) throws -> [[UInt8]] {
        let content = try ChangesetContent.decode(cs.body, origin: cs.origin)
        var keys: [[UInt8]] = []
        for i in content.instructions {
            let key = objectKey(realm, content.classes[i.object.classIndex], i.object.primaryKey)
            keys.append(key)
            if let path = embeddedPath(i.object.primaryKey) { keys.append(embeddedIndexKey(realm: realm, path, key).parent) }
        }
        return keys
    }

    /// The smallest key greater than every key that starts with `prefix` (nil: there is none).
    package static func prefixEnd(_ prefix: [UInt8]) -> [UInt8]? {
        var end = prefix
        while let last = end.last {
            if last < 0xFF {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return nil
    }

    /// Merges a trimmed changeset into the realm's base, inside the trim's transaction.
    package static func fold(_ cs: Changeset, realm: UInt32, into w: some RelayBaseWriting) throws {
        let content = try ChangesetContent.decode(cs.body, origin: cs.origin)
        for (i, instruction) in content.instructions.enumerated() {
            let s = cs.stamp.at(i)
            let o = instruction.object
            let key = objectKey(realm, content.classes[o.classIndex], o.primaryKey)
            try w.willTouchObject(key)
            let existing = try w.internalValue(objects, key: key).map { b in try b.withUnsafeBytes { try decodeObject($0) } }
            if existing == nil, let path = embeddedPath(o.primaryKey) { try indexUnderParent(key, path, realm: realm, w) }
            var object = existing ?? Object(primaryKey: o.primaryKey)
            func noteWrite() { if object.latest.map({ s > $0 }) ?? true { object.latest = s } }
            let void = object.deleted.map { s < $0 } ?? false
            switch instruction {
            case .create:
                if !void { noteWrite() }
            case .erase:
                if object.deleted.map({ s > $0 }) ?? true {
                    if w.indexesDeletions {
                        if let old = object.deleted { try w.deleteInternal(deleted, key: deletedKey(realm, old, key)) }
                        try w.putInternal(deleted, key: deletedKey(realm, s, key), value: [0])
                    }
                    object.deleted = s
                    try forgetBefore(key, s, realm: realm, w)
                }
            case .set(_, let p, let v):
                guard !void else { break }
                noteWrite()
                let prefix = partPrefix(key, .field, content.properties[p])
                let current = try w.internalValue(parts, key: prefix).map { b in try b.withUnsafeBytes { b -> Stamp in
                    var r = ByteReader(b, context: "relay base field")
                    return try readStamp(&r)
                } }
                if current.map({ s > $0 }) ?? true {
                    var v2 = ByteWriter(capacity: 32)
                    write(s, &v2)
                    v.encode(into: &v2)
                    try w.putInternal(parts, key: prefix, value: v2.bytes)
                    try deleteIncrements(key, content.properties[p], through: s, w)
                }
            case .addInteger(_, let p, let d):
                guard !void else { break }
                noteWrite()
                let field = try w.internalValue(parts, key: partPrefix(key, .field, content.properties[p])).map { b in try b.withUnsafeBytes { b -> Stamp in
                    var r = ByteReader(b, context: "relay base field")
                    return try readStamp(&r)
                } }
                if field.map({ s > $0 }) ?? true {
                    var v2 = ByteWriter(capacity: 10)
                    v2.zigzag(d)
                    try w.putInternal(parts, key: partPrefix(key, .increment, content.properties[p]) + stampKey(s), value: v2.bytes)
                }
            case .listInsert(_, let p, let after, let lamport, let v):
                if !void { noteWrite() }
                let e = Element(parent: after, inserted: s, valueStamp: s, erased: void, value: void ? .null : v, removed: void ? object.deleted : nil)
                let k = partPrefix(key, .element, content.properties[p]) + elementKey(ElementID(lamport: lamport, node: cs.origin))
                try w.putInternal(parts, key: k, value: encode(e))
                if void, let d = object.deleted { try indexRemoval(realm, d, k, objectKeyBytes: key.count, w) }
            case .listSet(_, let p, let id, let v):
                guard !void else { break }
                noteWrite()
                let k = partPrefix(key, .element, content.properties[p]) + elementKey(id)
                if var e = try w.internalValue(parts, key: k).map({ b in try b.withUnsafeBytes { try decodeElement($0) } }), !e.erased, s > e.valueStamp {
                    e.value = v
                    e.valueStamp = s
                    try w.putInternal(parts, key: k, value: encode(e))
                }
            case .listErase(_, let p, let id):
                let k = partPrefix(key, .element, content.properties[p]) + elementKey(id)
                if var e = try w.internalValue(parts, key: k).map({ b in try b.withUnsafeBytes { try decodeElement($0) } }), !e.erased {
                    e.erased = true
                    e.value = .null
                    e.removed = s
                    try w.putInternal(parts, key: k, value: encode(e))
                    try indexRemoval(realm, s, k, objectKeyBytes: key.count, w)
                }
            case .setAdd(_, let p, let v):
                guard !void else { break }
                noteWrite()
                let k = setTagKey(partPrefix(key, .setTag, content.properties[p]), v, s)
                if try w.internalValue(parts, key: k) == nil {
                    var v2 = ByteWriter(capacity: 16)
                    v2.u8(0)
                    v.encode(into: &v2)
                    try w.putInternal(parts, key: k, value: v2.bytes)
                }
            case .setRemove(_, let p, let v, let tags):
                var v2 = ByteWriter(capacity: 16)
                v2.u8(1)
                v.encode(into: &v2)
                for t in tags {
                    try w.putInternal(parts, key: setTagKey(partPrefix(key, .setTag, content.properties[p]), v, t), value: v2.bytes)
                }
            case .mapSet(_, let p, let mapKey, _), .mapRemove(_, let p, let mapKey):
                guard !void else { break }
                var value: SyncValue?
                if case .mapSet(_, _, _, let v) = instruction {
                    noteWrite()
                    value = v
                }
                let k = partPrefix(key, .mapEntry, content.properties[p]) + Array(mapKey.utf8)
                let current = try w.internalValue(parts, key: k).map { b in try b.withUnsafeBytes { try readMapEntry($0).0 } }
                if current.map({ s > $0 }) ?? true {
                    var v2 = ByteWriter(capacity: 32)
                    write(s, &v2)
                    v2.u8(value == nil ? 1 : 0)
                    if let value { value.encode(into: &v2) }
                    try w.putInternal(parts, key: k, value: v2.bytes)
                    // (An entry of an earlier removal of the key stays in the index; collecting
                    // checks the stamp.)
                    if value == nil { try indexRemoval(realm, s, k, objectKeyBytes: key.count, kind: 2, w) }
                }
            }
            try w.putInternal(objects, key: key, value: encode(object))
        }
    }

    /// After a delete at `d`: property values and increments from before it can never show
    /// again; elements inserted before it stay only as structure.
    private static func forgetBefore(_ key: [UInt8], _ d: Stamp, realm: UInt32, _ w: some RelayBaseWriting) throws {
        var doomed: [[UInt8]] = []
        var erase: [([UInt8], Element)] = []
        var removedTags: [([UInt8], [UInt8])] = []
        try w.forEachInternalEntry(parts, from: key, prefix: key) { k, v in
            let kind = Kind(rawValue: k[key.count])
            var r = ByteReader(v, context: "relay base part")
            switch kind {
            case .field:
                if try readStamp(&r) < d { doomed.append(Array(k)) }
            case .increment:
                if try stampFromKey(k) < d { doomed.append(Array(k)) }
            case .element:
                let e = try decodeElement(v)
                if !e.erased, e.inserted < d { erase.append((Array(k), e)) }
            case .setTag:
                if try r.u8() & 1 == 0, try stampFromKey(k) < d {
                    var gone = ByteWriter(capacity: v.count)
                    gone.u8(1)
                    gone.append(Array(v[1...]))
                    removedTags.append((Array(k), gone.bytes))
                }
            case .mapEntry:
                if try readMapEntry(v).0 < d { doomed.append(Array(k)) }
            case .embedded:
                break // the embedded objects keep their records (the delete voids them), until collected
            case nil:
                throw AtollError.corrupted("relay base: unknown part kind")
            }
            return true
        }
        for k in doomed { try w.deleteInternal(parts, key: k) }
        for (k, e) in erase {
            var gone = e
            gone.erased = true
            gone.value = .null
            gone.removed = d
            try w.putInternal(parts, key: k, value: encode(gone))
            try indexRemoval(realm, d, k, objectKeyBytes: key.count, w)
        }
        for (k, v) in removedTags { try w.putInternal(parts, key: k, value: v) }
    }

    /// Indexes, as folding does, the tombstone of the object with key `key`, the known removals
    /// of its list elements, its map keys' removals, and the object under its parent if it is
    /// embedded: for a
    /// compacted history folded before folding kept those indexes (the stores backfill them).
    /// An entry already there is written again, the same.
    package static func indexDeletions(ofObject key: [UInt8], realm: UInt32, in w: some RelayBaseWriting) throws {
        guard w.indexesDeletions else { return }
        if let v = try w.internalValue(objects, key: key) {
            let o = try v.withUnsafeBytes { try decodeObject($0) }
            if let d = o.deleted { try w.putInternal(deleted, key: deletedKey(realm, d, key), value: [0]) }
            if let path = embeddedPath(o.primaryKey) { try indexUnderParent(key, path, realm: realm, w) }
        }
        let elements = key + [Kind.element.rawValue]
        var removals: [(key: [UInt8], stamp: Stamp)] = []
        try w.forEachInternalEntry(parts, from: elements, prefix: elements) { k, v in
            let e = try decodeElement(v)
            if e.erased, let removed = e.removed { removals.append((Array(k), removed)) }
            return true
        }
        for r in removals { try indexRemoval(realm, r.stamp, r.key, objectKeyBytes: key.count, w) }
        let mapEntries = key + [Kind.mapEntry.rawValue]
        var mapRemovals: [(key: [UInt8], stamp: Stamp)] = []
        try w.forEachInternalEntry(parts, from: mapEntries, prefix: mapEntries) { k, v in
            let (stamp, value) = try readMapEntry(v)
            if value == nil { mapRemovals.append((Array(k), stamp)) }
            return true
        }
        for r in mapRemovals { try indexRemoval(realm, r.stamp, r.key, objectKeyBytes: key.count, kind: 2, w) }
    }

    /// Notes embedded object `key` (at `path`) among its parent's embedded objects.
    private static func indexUnderParent(_ key: [UInt8], _ path: EmbeddedPath, realm: UInt32, _ w: some RelayBaseWriting) throws {
        let index = embeddedIndexKey(realm: realm, path, key)
        try w.willTouchObject(index.parent)
        try w.putInternal(parts, key: index.part, value: [])
    }

    /// Indexes the removal at `s` of the list element (`kind` 1) or map key (2) with part key
    /// `k` (`collectDeleted`).
    private static func indexRemoval(_ realm: UInt32, _ s: Stamp, _ k: [UInt8], objectKeyBytes n: Int, kind: UInt8 = 1, _ w: some RelayBaseWriting) throws {
        guard w.indexesDeletions else { return }
        try w.putInternal(deleted, key: deletedKey(realm, s, k), value: [kind, UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)])
    }

    /// The class name an object key holds (nil: a malformed key).
    private static func className(inObjectKey k: [UInt8]) -> String? {
        guard k.count > 5, k.count >= 5 + Int(k[4]) else { return nil }
        return String(decoding: k[5..<(5 + Int(k[4]))], as: UTF8.self)
    }

    /// The parts of an element's part key whose object key has `n` bytes: the list's part
    /// prefix, and the class and property names.
    private static func elementKeyParts(_ k: [UInt8], objectKeyBytes n: Int) throws -> (list: [UInt8], className: String, property: String) {
        guard n > 5, k.count > n + 2, k[n] == Kind.element.rawValue, k.count == n + 2 + Int(k[n + 1]) + 24,
              let className = className(inObjectKey: Array(k[..<n]))
        else { throw AtollError.corrupted("relay base: a removed element's index entry names no element") }
        return (Array(k[..<(k.count - 24)]), className, String(decoding: k[(n + 2)..<(k.count - 24)], as: UTF8.self))
    }

    private static func deletedKey(_ realm: UInt32, _ d: Stamp, _ object: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: 32 + object.count)
        w.u32BigEndian(realm)
        w.append(stampKey(d))
        w.append(object)
        return w.bytes
    }

    /// Whether the realm has a tombstone or removal below `deletionPoint` to collect (one seek).
    package static func hasDeleted(realm: UInt32, below deletionPoint: UInt64, in r: some RelayBaseReading) throws -> Bool {
        var found = false
        try forEachDeleted(realm: realm, below: deletionPoint, in: r) { _ in
            found = true
            return false
        }
        return found
    }

    /// What a realm's schema history lets `collectDeleted` drop (with no schema recorded,
    /// nothing).
    package struct Collectable {
        private let classes: [String: SyncSchemaDescription.Class]

        package init(schema: SyncSchemaDescription?) {
            classes = Dictionary((schema?.classes ?? []).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        }

        /// Tombstones of the classes that are not embedded (an embedded object goes with its
        /// parent).
        func object(_ className: String) -> Bool {
            classes[className].map { !$0.isEmbedded } ?? false
        }

        /// Removed list elements and map keys of the lists and maps the schema knows.
        func collection(_ className: String, _ property: String) -> Bool {
            classes[className]?.property(named: property) != nil
        }

        /// Whether the list or map holds embedded objects (its removed elements and keys go
        /// with the records of the objects in them).
        func collectionHoldsEmbedded(_ className: String, _ property: String) -> Bool {
            guard let target = classes[className]?.property(named: property)?.linkTarget else { return false }
            return isEmbedded(target)
        }

        /// Whether the class is embedded (an object indexed under a parent is one of its
        /// embedded objects only then: an ordinary key can spell a path).
        func isEmbedded(_ className: String) -> Bool { classes[className]?.isEmbedded ?? false }
    }

    /// The object keys an index entry of `deleted` names (the object of a tombstone, or of a
    /// removed element), for a store that loads objects before collecting.
    package static func objectKey(ofDeletedEntry key: [UInt8], _ value: [UInt8]) throws -> [UInt8] {
        guard key.count > 32 else { throw AtollError.corrupted("relay base tombstone key of \(key.count) bytes") }
        if value == [0] { return Array(key[32...]) }
        guard value.count == 3, value[0] == 1 || value[0] == 2 else { throw AtollError.corrupted("relay base tombstone entry of \(value.count) bytes") }
        let n = Int(value[1]) << 8 | Int(value[2])
        guard key.count >= 32 + n else { throw AtollError.corrupted("relay base removal entry of \(key.count) bytes") }
        return Array(key[32..<(32 + n)])
    }

    /// The first and the end key of the realm's index entries of `deleted` stamped below
    /// `deletionPoint` (for a store that reads them by range).
    package static func deletedRange(realm: UInt32, below deletionPoint: UInt64) -> (start: [UInt8], end: [UInt8]) {
        var start = ByteWriter(capacity: 4)
        start.u32BigEndian(realm)
        var end = ByteWriter(capacity: 12)
        end.u32BigEndian(realm)
        end.u64BigEndian(deletionPoint)
        return (start.bytes, end.bytes)
    }

    /// What one `collectDeleted` dropped.
    package struct Collected: Equatable {
        /// Objects whose records went (tombstones with everything under them).
        package var objects = 0
        /// Removed list elements that went (of objects that stay).
        package var elements = 0
        /// Removed map keys that went (of objects that stay).
        package var mapKeys = 0
    }

    /// Collects up to `limit` index entries of the realm stamped below `deletionPoint` (a clock
    /// reading; see the top of this file). An object that holds no write after its delete goes
    /// with every part under it and its embedded objects; one written again after it (or with
    /// an embedded object written after it) keeps its record. A list with an element whose
    /// entry is read is collected whole (`collectList`). Call only once the log is trimmed
    /// through the applied bound that came with the point, and every object of the history is
    /// indexed under its parent (folding does it; a history folded before is backfilled first).
    ///
    /// Only what `collectable` accepts goes.
    @discardableResult
    package static func collectDeleted(realm: UInt32, below deletionPoint: UInt64, limit: Int, collectable: Collectable,
                                       in w: some RelayBaseWriting) throws -> Collected
    {
        var found: [DeletedEntry] = []
        try forEachDeleted(realm: realm, below: deletionPoint, in: w) { entry in
            found.append(entry)
            return found.count < max(1, limit)
        }
        var collected = Collected()
        // The lists (part prefixes, with their object keys) with an element removed below the
        // point whose index entry was read, and whether they hold embedded objects.
        var lists: [[UInt8]: (object: [UInt8], embedded: Bool)] = [:]
        for f in found {
            try w.deleteInternal(deleted, key: f.index)
            if let removal = f.removal, removal.kind == 2 {
                if try collectMapRemoval(f.key, stamp: f.stamp, objectKeyBytes: removal.objectKeyBytes, realm: realm, collectable, w) {
                    collected.mapKeys += 1
                }
                continue
            }
            if let n = f.removal?.objectKeyBytes {
                let parts = try elementKeyParts(f.key, objectKeyBytes: n)
                if collectable.collection(parts.className, parts.property) {
                    lists[parts.list] = (Array(f.key[..<n]), collectable.collectionHoldsEmbedded(parts.className, parts.property))
                }
                continue
            }
            guard let bytes = try w.internalValue(objects, key: f.key) else { continue }
            guard let className = className(inObjectKey: f.key) else { throw AtollError.corrupted("relay base: a tombstone's index entry names no object") }
            let o = try bytes.withUnsafeBytes { try decodeObject($0) }
            guard o.deleted == f.stamp, o.latest.map({ $0 < f.stamp }) ?? true, collectable.object(className) else { continue }
            guard let embedded = try embeddedObjects(under: f.key, writtenBefore: f.stamp, collectable, w) else { continue }
            for k in embedded { try deleteObject(k, w) }
            try deleteObject(f.key, w)
            collected.objects += 1
        }
        for (list, owner) in lists.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            let c = try collectList(list, below: deletionPoint, w)
            collected.elements += c.dropped
            // What is in an element removed below the point goes, whether or not the element
            // stays as structure: every write inside it is void.
            if owner.embedded, !c.removed.isEmpty {
                _ = try deleteEmbeddedObjects(under: c.removed.map(EmbeddedPath.elementPart), ofCollection: list, owner: owner.object,
                                              realm: realm, unlessWrittenFrom: nil, collectable, w)
            }
        }
        return collected
    }

    /// The keys of the embedded objects indexed under the object with key `parent`, or nil
    /// when one of them was written or deleted at or after `stamp` (the parent's delete; such
    /// a write is a write of the parent on the nodes, which keeps it).
    private static func embeddedObjects(under parent: [UInt8], writtenBefore stamp: Stamp, _ collectable: Collectable,
                                        _ w: some RelayBaseWriting) throws -> [[UInt8]]?
    {
        var keys: [[UInt8]] = []
        let prefix = partPrefix(parent, .embedded, "")
        try w.forEachInternalEntry(parts, from: prefix, prefix: prefix) { k, _ in
            keys.append(Array(k[prefix.count...]))
            return true
        }
        var embedded: [[UInt8]] = []
        for k in keys {
            // An ordinary object whose key spells a path under this one is not its own.
            guard let className = className(inObjectKey: k), collectable.isEmbedded(className) else { continue }
            try w.willTouchObject(k)
            guard let bytes = try w.internalValue(objects, key: k) else { continue }
            let o = try bytes.withUnsafeBytes { try decodeObject($0) }
            if o.latest.map({ $0 >= stamp }) ?? false || o.deleted.map({ $0 >= stamp }) ?? false { return nil }
            embedded.append(k)
        }
        return embedded
    }

    /// Deletes an object's record and every part under it.
    private static func deleteObject(_ key: [UInt8], _ w: some RelayBaseWriting) throws {
        try w.willTouchObject(key)
        var doomed: [[UInt8]] = []
        try w.forEachInternalEntry(parts, from: key, prefix: key) { k, _ in
            doomed.append(Array(k))
            return true
        }
        for k in doomed { try w.deleteInternal(parts, key: k) }
        try w.deleteInternal(objects, key: key)
    }

    /// Drops the removal of a map key (part key `k`, of an object key of `n` bytes) stamped
    /// `stamp`, if it is still the key's entry and the realm's schema knows the map; and, for a
    /// map of embedded objects, what was at that key, unless something in it was written at
    /// or after the removal. Returns whether it went.
    private static func collectMapRemoval(_ k: [UInt8], stamp: Stamp, objectKeyBytes n: Int, realm: UInt32, _ collectable: Collectable,
                                          _ w: some RelayBaseWriting) throws -> Bool
    {
        guard n > 5, k.count >= n + 2, k[n] == Kind.mapEntry.rawValue, k.count >= n + 2 + Int(k[n + 1]),
              let className = className(inObjectKey: Array(k[..<n]))
        else { throw AtollError.corrupted("relay base: a map key's removal entry names no map entry") }
        let prefixEnd = n + 2 + Int(k[n + 1])
        let property = String(decoding: k[(n + 2)..<prefixEnd], as: UTF8.self)
        guard collectable.collection(className, property), let v = try w.internalValue(parts, key: k) else { return false }
        let (current, value) = try v.withUnsafeBytes { try readMapEntry($0) }
        guard value == nil, current == stamp else { return false } // written again, or removed again later
        // A write inside the key stamped after its removal is kept for an object written at the
        // key between the two, which may still come: then the removal stays too.
        if collectable.collectionHoldsEmbedded(className, property) {
            let mapKey = String(decoding: k[prefixEnd...], as: UTF8.self)
            guard try deleteEmbeddedObjects(under: [EmbeddedPath.keyPart(mapKey)], ofCollection: Array(k[..<prefixEnd]), owner: Array(k[..<n]),
                                            realm: realm, unlessWrittenFrom: stamp, collectable, w)
            else { return false }
        }
        try w.deleteInternal(parts, key: k)
        return true
    }

    /// Deletes the embedded objects at the steps `steps` (element or key parts) of the list or
    /// map with part prefix `collection` of the object with key `owner` (a parent or an
    /// embedded object), and everything in them, with their index entries under the parent;
    /// or nothing, returning false, when one of them was written or deleted at or after
    /// `unlessWrittenFrom`.
    private static func deleteEmbeddedObjects(under steps: [String], ofCollection collection: [UInt8], owner: [UInt8], realm: UInt32,
                                              unlessWrittenFrom limit: Stamp?, _ collectable: Collectable, _ w: some RelayBaseWriting) throws -> Bool
    {
        guard let ownerBytes = try w.internalValue(objects, key: owner) else { return true }
        let ownerPK = try ownerBytes.withUnsafeBytes { try decodeObject($0) }.primaryKey
        let n = owner.count + 2
        guard collection.count >= n, collection[owner.count] == Kind.element.rawValue || collection[owner.count] == Kind.mapEntry.rawValue else {
            throw AtollError.corrupted("relay base: a collection's part prefix")
        }
        let property = String(decoding: collection[n...], as: UTF8.self)
        // The parent, and the path inside it down to the list's owner.
        let parent: [UInt8], above: [String]
        if let ownerClass = className(inObjectKey: owner), collectable.isEmbedded(ownerClass), let path = embeddedPath(ownerPK) {
            parent = objectKey(realm, path.parentClass, path.parentPrimaryKey)
            above = path.properties
        } else {
            parent = owner
            above = []
        }
        let doomedSteps = Set(steps.map { above + [property, $0] })
        let prefix = partPrefix(parent, .embedded, "")
        try w.willTouchObject(parent)
        var indexed: [[UInt8]] = []
        try w.forEachInternalEntry(parts, from: prefix, prefix: prefix) { k, _ in
            indexed.append(Array(k))
            return true
        }
        var doomed: [(object: [UInt8], entry: [UInt8])] = []
        for entry in indexed {
            let k = Array(entry[prefix.count...])
            guard let className = className(inObjectKey: k), collectable.isEmbedded(className) else { continue }
            try w.willTouchObject(k)
            guard let bytes = try w.internalValue(objects, key: k) else { continue }
            let o = try bytes.withUnsafeBytes { try decodeObject($0) }
            guard let path = embeddedPath(o.primaryKey), path.properties.count >= above.count + 2,
                  doomedSteps.contains(Array(path.properties.prefix(above.count + 2)))
            else { continue }
            if let limit, o.latest.map({ $0 >= limit }) ?? false || o.deleted.map({ $0 >= limit }) ?? false { return false }
            doomed.append((k, entry))
        }
        for d in doomed {
            try deleteObject(d.object, w)
            try w.deleteInternal(parts, key: d.entry)
        }
        return true
    }

    /// Drops from the list with part prefix `list` the removed elements that no changeset
    /// still to come names (removed below the point) and that are leaves of its tree or links
    /// of a removed chain (`ListTree.collect`); the elements a dropped link placed get their new
    /// parent. Returns how many went, and the ids of every element removed below the point
    /// (those that went and those that stay as structure).
    private static func collectList(_ list: [UInt8], below deletionPoint: UInt64, _ w: some RelayBaseWriting) throws -> (dropped: Int, removed: [ElementID]) {
        // (When the object was collected above, the list is gone and nothing is found.)
        var records: [ElementID: Element] = [:]
        var children: [ElementID?: [ElementID]] = [:]
        try w.forEachInternalEntry(parts, from: list, prefix: list) { k, v in
            guard k.count == list.count + 24 else { throw AtollError.corrupted("relay base element key of \(k.count) bytes") }
            let id = try elementID(inKey: k, at: list.count)
            let e = try decodeElement(v)
            records[id] = e
            children[e.parent, default: []].append(id)
            return true
        }
        // The tree in document order: pre-order, children by descending id.
        var order: [(id: ElementID, element: Element, depth: UInt32)] = []
        order.reserveCapacity(records.count)
        var stack: [(ElementID, UInt32)] = (children[nil] ?? []).sorted().map { ($0, 1) }
        while let (id, depth) = stack.popLast() {
            guard let e = records[id] else { throw AtollError.corrupted("relay base: a list element that is not there") }
            order.append((id, e, depth))
            stack.append(contentsOf: (children[id] ?? []).sorted().map { ($0, depth + 1) })
        }
        guard order.count == records.count else {
            throw AtollError.corrupted("relay base: \(records.count - order.count) elements of a list follow elements it does not have")
        }
        let elements = order.map { o in
            ListTree.Element(id: o.id, depth: o.depth, collectible: o.element.erased && o.element.removed.map { $0.hlc < deletionPoint } ?? false)
        }
        let removed = elements.filter(\.collectible).map(\.id)
        let kept = ListTree.collect(elements)
        guard kept.count < order.count else { return (0, removed) }
        // Each kept element's new parent: the last one kept a level up.
        guard let parents = ListTree.parents(depths: kept.map(\.depth)) else { throw AtollError.corrupted("relay base: a list's tree lost its shape") }
        var stays = [Bool](repeating: false, count: order.count)
        for (k, parent) in zip(kept, parents) {
            stays[k.index] = true
            var e = order[k.index].element
            let newParent = parent.map { order[kept[$0].index].id }
            if e.parent != newParent {
                e.parent = newParent
                try w.putInternal(parts, key: list + elementKey(order[k.index].id), value: encode(e))
            }
        }
        for (i, o) in order.enumerated() where !stays[i] { try w.deleteInternal(parts, key: list + elementKey(o.id)) }
        return (order.count - kept.count, removed)
    }

    /// An entry of the index of tombstones and removals: its key, its stamp, the key it names
    /// (an object key, or a part key), and for a removal its kind (1: a list element, 2: a map
    /// key) and the length of the object key the part key starts with.
    private typealias DeletedEntry = (index: [UInt8], stamp: Stamp, key: [UInt8], removal: (kind: UInt8, objectKeyBytes: Int)?)

    private static func forEachDeleted(realm: UInt32, below deletionPoint: UInt64, in r: some RelayBaseReading,
                                       _ body: (DeletedEntry) throws -> Bool) throws
    {
        var prefix = ByteWriter(capacity: 4)
        prefix.u32BigEndian(realm)
        try r.forEachInternalEntry(deleted, from: prefix.bytes, prefix: prefix.bytes) { k, v in
            guard k.count > 32, (v.count == 1 && v[0] == 0) || (v.count == 3 && (v[0] == 1 || v[0] == 2)) else {
                throw AtollError.corrupted("relay base tombstone entry of \(k.count) and \(v.count) bytes")
            }
            let stamp = try stamp(inKey: k, at: 4)
            guard stamp.hlc < deletionPoint else { return false }
            return try body((Array(k), stamp, Array(k[32...]), v[0] == 0 ? nil : (v[0], Int(v[1]) << 8 | Int(v[2]))))
        }
    }

    private static func deleteIncrements(_ key: [UInt8], _ property: String, through s: Stamp, _ w: some RelayBaseWriting) throws {
        let prefix = partPrefix(key, .increment, property)
        let limit = prefix + stampKey(s)
        var doomed: [[UInt8]] = []
        try w.forEachInternalEntry(parts, from: prefix, prefix: prefix) { k, _ in
            guard !limit.lexicographicallyPrecedes(Array(k)) else { return false }
            doomed.append(Array(k))
            return true
        }
        for k in doomed { try w.deleteInternal(parts, key: k) }
    }

    // MARK: snapshots

    /// The next chunk of a realm's snapshot: instructions for the objects after `after` (nil:
    /// from the first), up to about `bytesMax` (whole objects). Returns the body (format 2) and
    /// the key of the last object in it (nil when there was none left).
    package static func chunk(realm: UInt32, after: [UInt8]?, relay: NodeID, bytesMax: Int, in r: some RelayBaseReading) throws -> (body: [UInt8], last: [UInt8]?) {
        var encoder = ChangesetBodyEncoder(origin: relay, explicitStamps: true)
        var prefix = ByteWriter(capacity: 4)
        prefix.u32BigEndian(realm)
        var last: [UInt8]?
        var objectsSeen: [([UInt8], Object)] = []
        try r.forEachInternalEntry(objects, from: after.map { $0 + [0] } ?? prefix.bytes, prefix: prefix.bytes) { k, v in
            objectsSeen.append((Array(k), try decodeObject(v)))
            return objectsSeen.count < chunkObjectsMax
        }
        for (key, object) in objectsSeen {
            let className = String(decoding: key[5..<(5 + Int(key[4]))], as: UTF8.self)
            let address = ObjectAddress(classIndex: encoder.classIndex(className), primaryKey: object.primaryKey)
            if let d = object.deleted { encoder.append(.erase(address), stamp: d) }
            if let l = object.latest { encoder.append(.create(address), stamp: l) }
            var failure: AtollError?
            try r.forEachInternalEntry(parts, from: key, prefix: key) { k, v in
                let kindAt = key.count
                if k[kindAt] == Kind.embedded.rawValue { return true } // an index, not state
                let nameLength = Int(k[kindAt + 1])
                let property = String(decoding: k[(kindAt + 2)..<(kindAt + 2 + nameLength)], as: UTF8.self)
                let p = encoder.propertyIndex(property)
                let rest = kindAt + 2 + nameLength
                var rd = ByteReader(v, context: "relay base part")
                switch Kind(rawValue: k[kindAt]) {
                case .field:
                    let s = try readStamp(&rd)
                    encoder.append(.set(address, property: p, value: try SyncValue.decode(from: &rd)), stamp: s)
                case .increment:
                    encoder.append(.addInteger(address, property: p, delta: try rd.zigzag()), stamp: try stampFromKey(k))
                case .element:
                    let id = try elementID(inKey: k, at: rest)
                    let e = try decodeElement(v)
                    encoder.append(.listInsert(address, property: p, after: e.parent, lamport: id.lamport, value: e.value), stamp: e.inserted,
                                   elementNode: id.node, elementErased: e.erased)
                    if e.erased {
                        // A node that has the element (visible) must learn it is gone.
                        encoder.append(.listErase(address, property: p, element: id), stamp: e.inserted)
                    } else if e.valueStamp != e.inserted {
                        encoder.append(.listSet(address, property: p, element: id, value: e.value), stamp: e.valueStamp)
                    }
                case .setTag:
                    let tag = try stampFromKey(k)
                    let removed = try rd.u8() & 1 != 0
                    let value = try SyncValue.decode(from: &rd)
                    if removed {
                        // A node that has the add must learn it is gone; one that has not keeps it removed.
                        encoder.append(.setRemove(address, property: p, value: value, tags: [tag]), stamp: tag)
                    } else {
                        encoder.append(.setAdd(address, property: p, value: value), stamp: tag)
                    }
                case .mapEntry:
                    let mapKey = String(decoding: k[rest...], as: UTF8.self)
                    let (s, value) = try readMapEntry(v)
                    if let value {
                        encoder.append(.mapSet(address, property: p, key: mapKey, value: value), stamp: s)
                    } else {
                        encoder.append(.mapRemove(address, property: p, key: mapKey), stamp: s)
                    }
                case .embedded, nil:
                    failure = AtollError.corrupted("relay base: unknown part kind")
                    return false
                }
                return true
            }
            if let failure { throw failure }
            last = key
            if encoder.instructionBytes >= bytesMax { break }
        }
        return (encoder.finish(), last)
    }
}
