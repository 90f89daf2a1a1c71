import AtollStorage
@testable import AtollSync
import Foundation

/// An independent statement of the merge rules: the state every node must reach, computed
/// directly from the set of all changesets (no metadata, no incremental apply, no order of
/// arrival). The simulator compares every node with it, which checks convergence and that every
/// acknowledged write survives unless overwritten by a later stamp.
struct Oracle {
    private struct Element {
        var id: ElementID
        var parent: ElementID?
        var inserted: Stamp
        var value: SyncValue
        var valueStamp: Stamp
        var erased = false
    }

    private struct Object {
        var latest: Stamp?
        var deleted: Stamp?
        var sets: [String: (Stamp, SyncValue)] = [:]
        var increments: [String: [(Stamp, Int64)]] = [:]
        var lists: [String: [ElementID: Element]] = [:]
        /// Per set: every add of a value (its tag), and the tags removals named.
        var setAdds: [String: [SyncValue: Set<Stamp>]] = [:]
        var setRemoved: [String: [SyncValue: Set<Stamp>]] = [:]
        /// Per map and key: every write (a value) and removal (nil) with its stamp.
        var mapWrites: [String: [String: [(Stamp, SyncValue?)]]] = [:]

        mutating func write(_ s: Stamp) { if latest.map({ s > $0 }) ?? true { latest = s } }
        var exists: Bool { latest.map { l in deleted.map { l > $0 } ?? true } ?? false }
    }

    private struct Key: Hashable {
        let className: String
        let pk: StorageValue
    }

    private var objects: [Key: Object] = [:]

    /// The changesets in any order: the result depends only on the set. `embeddedClasses`: the
    /// embedded classes, whose objects are named by their path (docs/SYNC.md, "Embedded objects").
    init(_ changesets: [Changeset], embeddedClasses: Set<String> = []) throws {
        var elementWrites: [(Key, String, ElementID, Stamp, SyncValue?)] = []
        for cs in changesets {
            let content = try ChangesetContent.decode(cs.body, origin: cs.origin)
            for (i, instruction) in content.instructions.enumerated() {
                let s = cs.stamp.at(i)
                let o = instruction.object
                var key = Key(className: content.classes[o.classIndex], pk: o.primaryKey)
                if embeddedClasses.contains(key.className), case .string(let text) = o.primaryKey {
                    // An embedded object: keyed by its path alone. A create or set in it is a
                    // write of each object above it too, up to the parent.
                    key = Key(className: "", pk: o.primaryKey)
                    switch instruction {
                    case .create, .set:
                        let path = try EmbeddedPath(parsing: text)
                        objects[Key(className: path.parentClass, pk: path.parentPrimaryKey), default: Object()].write(s)
                        for n in 1..<path.properties.count {
                            let above = EmbeddedPath(parentClass: path.parentClass, parentPrimaryKey: path.parentPrimaryKey,
                                                     properties: Array(path.properties[0..<n]))
                            objects[Key(className: "", pk: .string(above.string)), default: Object()].write(s)
                        }
                    default:
                        break
                    }
                }
                var obj = objects[key] ?? Object()
                switch instruction {
                case .create: obj.write(s)
                case .erase: if obj.deleted.map({ s > $0 }) ?? true { obj.deleted = s }
                case .set(_, let p, let v):
                    obj.write(s)
                    let name = content.properties[p]
                    if obj.sets[name].map({ s > $0.0 }) ?? true { obj.sets[name] = (s, v) }
                case .addInteger(_, let p, let d):
                    obj.write(s)
                    obj.increments[content.properties[p], default: []].append((s, d))
                case .listInsert(_, let p, let after, let lamport, let v):
                    obj.write(s)
                    let id = ElementID(lamport: lamport, node: cs.origin)
                    // An id names one element for good (a reused one is taken for the first).
                    if let first = obj.lists[content.properties[p]]?[id], first.inserted != s {
                        throw AtollError(.protocolViolation, "element id \(id) of \(key.className) \(key.pk).\(content.properties[p]) is given at \(first.inserted) and again at \(s)")
                    }
                    obj.lists[content.properties[p], default: [:]][id] = Element(id: id, parent: after, inserted: s, value: v, valueStamp: s)
                case .listSet(_, let p, let e, let v):
                    obj.write(s)
                    elementWrites.append((key, content.properties[p], e, s, v))
                case .listErase(_, let p, let e):
                    elementWrites.append((key, content.properties[p], e, s, nil))
                case .setAdd(_, let p, let v):
                    obj.write(s)
                    obj.setAdds[content.properties[p], default: [:]][v, default: []].insert(s)
                case .setRemove(_, let p, let v, let tags):
                    obj.setRemoved[content.properties[p], default: [:]][v, default: []].formUnion(tags)
                case .mapSet(_, let p, let k, let v):
                    obj.write(s)
                    obj.mapWrites[content.properties[p], default: [:]][k, default: []].append((s, v))
                case .mapRemove(_, let p, let k):
                    obj.mapWrites[content.properties[p], default: [:]][k, default: []].append((s, nil))
                }
                objects[key] = obj
            }
        }
        // Element writes and removals, once every insert is known.
        for (key, name, e, s, v) in elementWrites {
            guard var el = objects[key]?.lists[name]?[e] else { continue }
            if let v {
                if s > el.valueStamp { el.value = v; el.valueStamp = s }
            } else {
                el.erased = true
            }
            objects[key]?.lists[name]?[e] = el
        }
    }

    /// The canonical dump (the format of `canonicalDump`) of the state the changesets define.
    func expectedDump(_ specs: [TableSpec]) -> String {
        var out = ""
        let bySpecName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        /// An embedded object at `path` under `tombstone` (the greatest delete above it), inline.
        func embedded(_ spec: TableSpec, _ path: EmbeddedPath, _ tombstone: Stamp?) -> String {
            guard let obj = objects[Key(className: "", pk: .string(path.string))] else { return "null" }
            let t = [tombstone, obj.deleted].compactMap { $0 }.max()
            guard let latest = obj.latest, t.map({ latest > $0 }) ?? true else { return "null" }
            return "{" + spec.columns.map { c in
                if let target = c.linkTarget, let ts = bySpecName[target], ts.isEmbedded {
                    return "\(c.name)=" + embedded(ts, EmbeddedPath(parentClass: path.parentClass, parentPrimaryKey: path.parentPrimaryKey,
                                                                    properties: path.properties + [c.name]), t)
                }
                return "\(c.name)=\(fieldValue(obj, c, tombstone: t))"
            }.joined(separator: " ") + "}"
        }
        /// An element of a list of embedded objects at `path`: it exists while its element does
        /// (a removal is final); its fields are those written after `tombstone`. (Its values only:
        /// the elements of TestSchema's lists hold no embedded objects.)
        func embeddedElement(_ spec: TableSpec, _ path: EmbeddedPath, _ tombstone: Stamp?) -> String {
            let obj = objects[Key(className: "", pk: .string(path.string))] ?? Object()
            let t = [tombstone, obj.deleted].compactMap { $0 }.max()
            return "{" + spec.columns.map { c in "\(c.name)=\(fieldValue(obj, c, tombstone: t))" }.joined(separator: " ") + "}"
        }
        for spec in specs.sorted(by: { $0.name < $1.name }) where !spec.isEmbedded {
            let present = objects.filter { $0.key.className == spec.name && $0.value.exists }
            out += "\(spec.name) (\(present.count))\n"
            var rows: [([UInt8], String)] = []
            for (key, obj) in present {
                var line = "  \(key.pk):"
                for (i, c) in spec.columns.enumerated() where i != spec.primaryKeyIndex {
                    if c.isSet {
                        line += " \(c.name)=<\(setValues(obj, c).sorted().joined(separator: ","))>"
                    } else if c.isMap, let target = c.linkTarget, let ts = bySpecName[target], ts.isEmbedded {
                        // A map of embedded objects: per key its latest write (after the object's
                        // delete): nil, or an object by its path, holding the writes after that
                        // key write (which deletes what the key held).
                        let shown = latestMapWrites(obj, c).compactMap { mapKey, stamp, value -> String? in
                            guard let value else { return nil }
                            guard case .link = value else { return "\(mapKey):null" }
                            let at = EmbeddedPath(parentClass: spec.name, parentPrimaryKey: key.pk, properties: [c.name, EmbeddedPath.keyPart(mapKey)])
                            return "\(mapKey):" + embeddedElement(ts, at, [obj.deleted, stamp].compactMap { $0 }.max())
                        }
                        line += " \(c.name)={\(shown.joined(separator: ","))}"
                    } else if c.isMap {
                        line += " \(c.name)={\(mapEntries(obj, c).map { "\($0.0):\($0.1)" }.joined(separator: ","))}"
                    } else if c.isList, let target = c.linkTarget, let ts = bySpecName[target], ts.isEmbedded {
                        // A list of embedded objects: each live element inline, by its path.
                        let shown = listElements(obj, c).map { e in
                            let path = EmbeddedPath(parentClass: spec.name, parentPrimaryKey: key.pk, properties: [c.name, EmbeddedPath.elementPart(e.id)])
                            return embeddedElement(ts, path, obj.deleted)
                        }
                        line += " \(c.name)=[\(shown.joined(separator: ","))]"
                    } else if c.isList {
                        line += " \(c.name)=[\(listValues(obj, c).joined(separator: ","))]"
                    } else if let target = c.linkTarget, let ts = bySpecName[target], ts.isEmbedded {
                        line += " \(c.name)=" + embedded(ts, EmbeddedPath(parentClass: spec.name, parentPrimaryKey: key.pk, properties: [c.name]), obj.deleted)
                    } else {
                        line += " \(c.name)=\(fieldValue(obj, c))"
                    }
                }
                rows.append((IndexKey.encode(key.pk).bytes, line))
            }
            for (_, line) in rows.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) { out += line + "\n" }
        }
        return out
    }

    private func show(_ v: SyncValue, _ c: ColumnSpec) -> String? {
        switch v {
        case .value(let s): return s.description
        case .link(let pk):
            guard let target = c.linkTarget, objects[Key(className: target, pk: pk)]?.exists == true else { return nil }
            return "->\(pk)"
        case .typedLink(let target, let pk):
            // A mixed value that links an object: shown with its class, while the target exists.
            guard objects[Key(className: target, pk: pk)]?.exists == true else { return nil }
            return "->\(target):\(pk)"
        }
    }

    /// `tombstone`: the greatest delete that voids older writes (the object's own by default).
    private func fieldValue(_ o: Object, _ c: ColumnSpec, tombstone: Stamp?? = nil) -> String {
        let defaultValue = SyncedClass.defaultValue(c)
        let deleted = tombstone ?? o.deleted
        var base: (stamp: Stamp, value: StorageValue)
        if let (s, v) = o.sets[c.name], deleted.map({ s > $0 }) ?? true {
            if case .link = v {
                return show(v, c) ?? "null"
            }
            if case .typedLink = v {
                return show(v, c) ?? "null"
            }
            guard case .value(let sv) = v else { return "null" }
            base = (s, sv)
        } else {
            base = (deleted ?? .zero, defaultValue)
        }
        if case .int(var n) = base.value {
            for (s, d) in o.increments[c.name] ?? [] where s > base.stamp { n = n &+ d }
            base.value = .int(wrap(n, bits: c.intBits))
        }
        return base.value.description
    }

    /// Add-wins: a value is in the set while one of its adds (after the object's last delete)
    /// is named by no removal; a link shows while its target exists.
    private func setValues(_ o: Object, _ c: ColumnSpec) -> [String] {
        var out: [String] = []
        for (v, tags) in o.setAdds[c.name] ?? [:] {
            let removed = o.setRemoved[c.name]?[v] ?? []
            guard tags.contains(where: { t in !removed.contains(t) && o.deleted.map { t > $0 } ?? true }) else { continue }
            if let shown = show(v, c) { out.append(shown) }
        }
        return out
    }

    /// Per key, the write or removal (nil) with the greatest stamp after the object's last
    /// delete, in the table's order: by key, as UTF-8 bytes.
    private func latestMapWrites(_ o: Object, _ c: ColumnSpec) -> [(key: String, stamp: Stamp, value: SyncValue?)] {
        var out: [(key: String, stamp: Stamp, value: SyncValue?)] = []
        for (key, writes) in o.mapWrites[c.name] ?? [:] {
            guard let last = writes.filter({ w in o.deleted.map { w.0 > $0 } ?? true }).max(by: { $0.0 < $1.0 }) else { continue }
            out.append((key, last.0, last.1))
        }
        return out.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
    }

    /// Per key with a value: the value; a link to a deleted target shows as null.
    private func mapEntries(_ o: Object, _ c: ColumnSpec) -> [(String, String)] {
        latestMapWrites(o, c).compactMap { key, _, value in value.map { (key, show($0, c) ?? "null") } }
    }

    private func listValues(_ o: Object, _ c: ColumnSpec) -> [String] {
        listElements(o, c).compactMap { show($0.value, c) }
    }

    /// The live elements of a list in document order (inserted after the object's last delete,
    /// not removed).
    private func listElements(_ o: Object, _ c: ColumnSpec) -> [Element] {
        guard let elements = o.lists[c.name] else { return [] }
        // Children of each element (nil: the head), newest id first; document order is preorder.
        var children: [ElementID?: [ElementID]] = [:]
        for e in elements.values { children[e.parent, default: []].append(e.id) }
        var order: [ElementID] = []
        var stack: [ElementID] = (children[nil] ?? []).sorted()
        while let id = stack.popLast() {
            order.append(id)
            stack += (children[id] ?? []).sorted()
        }
        return order.compactMap { id in
            guard let e = elements[id], !e.erased, o.deleted.map({ e.inserted > $0 }) ?? true else { return nil }
            return e
        }
    }
}
