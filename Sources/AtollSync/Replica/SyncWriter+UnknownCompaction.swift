import AtollStorage

// What bounds `sync.unknown` (SyncWriter+Unknown.swift, docs/SYNC.md "Schema changes"). A node
// that stays on an older schema keeps every instruction it cannot hold; without compaction
// that grows with every write newer nodes make of what it lacks. The merge rules make most of
// those instructions void once a later one is there, so the node keeps only what can still
// matter when it upgrades:
//
// - a property's write (a last-writer-wins register): only the newest per (object, property).
//   An older write arriving later is not kept; the increments of a counter stamped before the
//   newest write go (a write discards them on every node);
// - an object's delete: everything kept of the object stamped before it goes (a delete voids
//   older writes), but for list instructions, whose elements may anchor later inserts; an
//   instruction stamped before a kept delete is not kept. A delete of an object of a class the
//   node has (applied, not kept) drops what is kept of the object the same way.
//
// So the kept instructions are bounded by: per (object, property) one write (plus the increments
// after it), per object one delete, plus list, set and map instructions (which are not
// registers). To find the instructions of an object without reading all of them, each has an
// entry in an index:
//
//   sync.unknown.objects   varint length ++ class name ++ varint length ++ tagged primary key
//                          ++ varint length ++ property name ("" for a create or delete)
//                          ++ u8 kind ++ the instruction's sync.unknown key (stamp, 28 bytes)
//                                                    -> [1]
//
// Files kept before the index existed are indexed when the node next keeps an instruction.

extension SyncTrees {
    static let unknownObjects = "sync.unknown.objects"
}

/// How compaction treats a kept instruction.
enum KeptKind: UInt8 {
    case set = 0, addInteger = 1, list = 2, other = 3, erase = 4

    init(_ i: SyncInstruction) {
        switch i {
        case .set: self = .set
        case .addInteger: self = .addInteger
        case .listInsert, .listSet, .listErase: self = .list
        case .erase: self = .erase
        case .create, .setAdd, .setRemove, .mapSet, .mapRemove: self = .other
        }
    }
}

extension SyncWriter {
    static func keptObjectPrefix(_ className: String, _ pk: StorageValue) -> [UInt8] {
        var w = ByteWriter(capacity: className.utf8.count + 24)
        let name = Array(className.utf8)
        w.varint(UInt64(name.count))
        w.append(name)
        var v = ByteWriter(capacity: 16)
        pk.encode(into: &v)
        w.varint(UInt64(v.bytes.count))
        w.append(v.bytes)
        return w.bytes
    }

    static func keptPropertyPrefix(_ object: [UInt8], _ property: String) -> [UInt8] {
        var w = ByteWriter(capacity: object.count + property.utf8.count + 2)
        w.append(object)
        let name = Array(property.utf8)
        w.varint(UInt64(name.count))
        w.append(name)
        return w.bytes
    }

    static func keptIndexKey(_ className: String, _ pk: StorageValue, _ property: String, _ kind: KeptKind, _ stamp: Stamp) -> [UInt8] {
        keptPropertyPrefix(keptObjectPrefix(className, pk), property) + [kind.rawValue] + SyncTrees.unknownKey(stamp)
    }

    /// The index key of a kept instruction, from its names.
    static func keptIndexKey(_ i: SyncInstruction, _ names: Names, _ stamp: Stamp) -> [UInt8] {
        keptIndexKey(names.classNames[i.object.classIndex], i.object.primaryKey, i.property.map { names.properties[$0] } ?? "", KeptKind(i), stamp)
    }

    /// Compacts what is kept of the object of an instruction about to be kept (`stamp`, `kind`,
    /// of `property` of object `pk` of class `className`), and says whether it is still worth
    /// keeping (false: a kept instruction voids it).
    func compactKept(_ className: String, _ pk: StorageValue, _ property: String, _ kind: KeptKind, _ stamp: Stamp) throws -> Bool {
        try indexKeptInstructionsOnce()
        let object = Self.keptObjectPrefix(className, pk)
        let at = SyncTrees.unknownKey(stamp)
        /// Calls `body` with each indexed instruction under `prefix` (which may end in the kind
        /// byte) but this one: its kind, whether it is stamped after this one, and its index key.
        func scan(_ prefix: [UInt8], _ body: (KeptKind?, _ newer: Bool, _ key: [UInt8]) -> Void) throws {
            try txn.forEachInternalEntry(SyncTrees.unknownObjects, from: prefix, prefix: prefix) { k, _ in
                guard k.count >= prefix.count + 28, k.count > 29 else { throw AtollError.corrupted("sync.unknown.objects key of \(k.count) bytes") }
                let key = Array(k)
                let stampBytes = key.suffix(28)
                guard !stampBytes.elementsEqual(at) else { return true }
                body(KeptKind(rawValue: key[key.count - 29]), at.lexicographicallyPrecedes(stampBytes), key)
                return true
            }
        }
        var void = false
        if kind != .list {
            // A kept delete of the object stamped after it voids it.
            try scan(Self.keptPropertyPrefix(object, "") + [KeptKind.erase.rawValue]) { _, newer, _ in
                if newer { void = true }
            }
        }
        var drop: [[UInt8]] = []
        switch kind {
        case .set, .addInteger:
            // A newer write of the property voids it; a write voids older writes and increments.
            try scan(Self.keptPropertyPrefix(object, property)) { k, newer, key in
                if k == .set, newer { void = true }
                if kind == .set, !newer, k == .set || k == .addInteger { drop.append(key) }
            }
        case .erase:
            try scan(object) { k, newer, key in
                if !newer, k != .list { drop.append(key) }
            }
        case .list, .other:
            break
        }
        guard !void else { return false }
        for key in drop { try forgetKept(indexKey: key) }
        return true
    }

    /// A delete of an object of a class the node has, applied: drops what is kept of the object
    /// stamped before it (but for list instructions).
    func dropKeptBefore(erase className: String, _ pk: StorageValue, _ stamp: Stamp) throws {
        let object = Self.keptObjectPrefix(className, pk)
        let at = SyncTrees.unknownKey(stamp)
        var drop: [[UInt8]] = []
        try txn.forEachInternalEntry(SyncTrees.unknownObjects, from: object, prefix: object) { k, _ in
            guard k.count >= object.count + 29 else { throw AtollError.corrupted("sync.unknown.objects key of \(k.count) bytes") }
            let key = Array(k)
            if key.suffix(28).lexicographicallyPrecedes(at), KeptKind(rawValue: key[key.count - 29]) != .list { drop.append(key) }
            return true
        }
        for key in drop { try forgetKept(indexKey: key) }
    }

    /// Removes a kept instruction and its index entry.
    func forgetKept(indexKey key: [UInt8]) throws {
        try txn.deleteInternal(SyncTrees.unknownObjects, key: key)
        try txn.deleteInternal(SyncTrees.unknown, key: Array(key.suffix(28)))
    }

    /// Indexes the kept instructions of a file kept before the index existed (once: afterwards
    /// every kept instruction has its entry).
    private func indexKeptInstructionsOnce() throws {
        var indexed = false
        try txn.forEachInternalEntry(SyncTrees.unknownObjects, from: []) { _, _ in indexed = true; return false }
        guard !indexed else { return }
        var entries: [[UInt8]] = []
        try txn.forEachInternalEntry(SyncTrees.unknown, from: []) { _, body in
            var decoder = try ChangesetBodyDecoder(body, origin: .zero, snapshot: true)
            let names = Names(decoder, schema)
            guard let i = try decoder.next() else { throw AtollError.corrupted("sync.unknown holds an empty instruction") }
            entries.append(Self.keptIndexKey(i, names, decoder.stamp))
            return true
        }
        for key in entries { try txn.putInternal(SyncTrees.unknownObjects, key: key, value: [1]) }
    }
}
