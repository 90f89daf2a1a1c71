import AtollStorage

/// The decoded body of a changeset: name tables and instructions.
///
/// Body encoding (format 1), all integers LEB128 varints unless noted:
///
///     u8 format (1)
///     nodeCount, nodeCount × 16-byte node id     nodes named by element ids, other than the origin
///     classCount, classCount × string           class names (varint length + UTF-8)
///     propertyCount, propertyCount × string     property names
///     instructionCount, then per instruction:
///         u8 op, class index, primary key (tagged value, never a link), then by op:
///         1 create, 2 erase:   nothing
///         3 set:               property, value
///         4 addInteger:        property, zigzag delta
///         5 listInsert:        property, element ref `after` (0: head), lamport, value
///         6 listSet:           property, element ref, value
///         7 listErase:         property, element ref
///     element ref: node ref (1: origin, 2 + i: nodes[i]; 0 only for "head"), then lamport
///     value: StorageValue's tagged encoding (docs/FORMAT.md), or tag 12 + the target's primary
///            key (tagged) for a link
///
/// A small field update costs op, class, key, property and value: 5 to 10 bytes before
/// compression; names are written once per changeset.
///
/// Format 2 (snapshots of a relay's compacted history, never in a changeset) is the same with,
/// after each instruction's operands, its stamp (varint hlc, node ref, varint index) and, for a
/// list insert, the node ref of the element's node and u8 flags (1: the element was removed; it
/// comes only for the structure). In format 1 the stamp and node follow from the changeset.
///
/// Format 3 (what nodes make) is format 1 with, after the operands of every erase, set and
/// listSet, the stamp the origin had seen there when it made the change (the property's write,
/// the list element's value, or the object's latest write for an erase): varint hlc (0: none),
/// then, when not 0, node ref and varint index. Receivers use it to tell a concurrent write (a
/// conflict, recorded in the conflict ledger) from one made after seeing the other.
///
/// Format 4 (what nodes make for a transaction that edits a set or a map) is format 3 with four
/// more instructions; a body without them stays format 3, so nodes and relays that read only
/// formats 1 and 3 still take every changeset that touches no set or map:
///
///         8 setAdd:            property, value               (its tag is the instruction's stamp)
///         9 setRemove:         property, value, tagCount, tagCount × (varint hlc, node ref,
///                              varint index): the adds of the value its origin had seen
///         10 mapSet:           property, key (string), value, seen stamp
///         11 mapRemove:        property, key (string), seen stamp
///
/// Snapshots (format 2) carry them too, with their own stamps. A node or relay of a version
/// that reads only formats 1 to 3 refuses a format 4 body (`.protocolViolation`, "upgrade
/// Atoll"), as it refuses any format it does not know.
///
/// Format 5 (what nodes make for a transaction that writes a mixed value linking an object) is
/// format 4 with one more form of value, a typed link: tag 17, the target's class (an index into
/// the class names), then its primary key (tagged). A body without one stays format 4 or 3.
/// Snapshots carry typed links too. A node or relay that reads only formats 1 to 4 refuses a
/// format 5 body as it refuses any format it does not know ("upgrade Atoll").
public struct ChangesetContent: Equatable, Sendable {
    /// The class names the instructions refer to by index.
    public var classes: [String] = []
    /// The property names the instructions refer to by index.
    public var properties: [String] = []
    /// The changes, in the order they were made.
    public var instructions: [SyncInstruction] = []

    /// A content with these tables and instructions.
    public init(classes: [String] = [], properties: [String] = [], instructions: [SyncInstruction] = []) {
        self.classes = classes
        self.properties = properties
        self.instructions = instructions
    }

    static let formatVersion: UInt8 = 1
    static let snapshotFormatVersion: UInt8 = 2
    static let seenStampsFormatVersion: UInt8 = 3
    static let collectionsFormatVersion: UInt8 = 4
    static let typedLinksFormatVersion: UInt8 = 5
    static let linkTag: UInt8 = 12
    /// A typed link: the target's class and primary key (format 5 and snapshots; in metadata
    /// records the class is written by name). Storage leaves tag 17 free for it.
    static let typedLinkTag: UInt8 = 17

    enum Op: UInt8 {
        case create = 1, erase, set, addInteger, listInsert, listSet, listErase, setAdd, setRemove, mapSet, mapRemove
    }
}

// MARK: encoding

extension ChangesetContent {
    /// The body bytes of this content for a changeset made by `origin`.
    public func encode(origin: NodeID) -> [UInt8] {
        // Set and map instructions exist only from format 4, which has seen stamps (none here).
        let collections = instructions.contains { $0.isCollectionInstruction || $0.carriesTypedLink }
        var encoder = ChangesetBodyEncoder(origin: origin, seenStamps: collections)
        for c in classes { _ = encoder.classIndex(c) }
        for p in properties { _ = encoder.propertyIndex(p) }
        for i in instructions {
            if collections { encoder.append(i, seen: nil) } else { encoder.append(i) }
        }
        return encoder.finish()
    }
}

/// Builds a changeset body instruction by instruction, interning class and property names and
/// node ids as they are first used.
struct ChangesetBodyEncoder {
    let origin: NodeID
    /// Format 2: every instruction carries its own stamp (snapshots).
    let explicitStamps: Bool
    /// Format 3: erase, set and listSet carry the stamp their origin had seen (`append(_:seen:)`).
    let seenStamps: Bool
    private var nodes: [NodeID] = []
    private var nodeIndex: [NodeID: Int] = [:]
    private var classes: [String] = []
    private var classIndex: [String: Int] = [:]
    private var properties: [String] = []
    private var propertyIndex: [String: Int] = [:]
    private var body = ByteWriter(capacity: 256)
    private(set) var instructionCount = 0
    /// A set or map instruction was appended: the body is format 4.
    private(set) var hasCollectionInstructions = false
    /// A typed link was appended: the body is format 5.
    private(set) var hasTypedLinks = false

    init(origin: NodeID, explicitStamps: Bool = false, seenStamps: Bool = false) {
        precondition(!(explicitStamps && seenStamps), "snapshots carry no seen stamps")
        self.origin = origin
        self.explicitStamps = explicitStamps
        self.seenStamps = seenStamps
    }

    /// Bytes of instructions so far (the name tables come on top).
    var instructionBytes: Int { body.count }
    var isEmpty: Bool { instructionCount == 0 }

    mutating func classIndex(_ name: String) -> Int {
        if let i = classIndex[name] { return i }
        classes.append(name)
        classIndex[name] = classes.count - 1
        return classes.count - 1
    }

    mutating func propertyIndex(_ name: String) -> Int {
        if let i = propertyIndex[name] { return i }
        properties.append(name)
        propertyIndex[name] = properties.count - 1
        return properties.count - 1
    }

    private mutating func nodeRef(_ node: NodeID) -> UInt64 {
        if node == origin { return 1 }
        if let i = nodeIndex[node] { return UInt64(i) + 2 }
        nodes.append(node)
        nodeIndex[node] = nodes.count - 1
        return UInt64(nodes.count + 1)
    }

    private mutating func element(_ e: ElementID?) {
        guard let e else { body.varint(0); return }
        body.varint(nodeRef(e.node))
        body.varint(e.lamport)
    }

    private mutating func value(_ v: SyncValue) {
        switch v {
        case .value(let s): s.encode(into: &body)
        case .link(let pk): body.u8(ChangesetContent.linkTag); pk.encode(into: &body)
        case .typedLink(let className, let pk):
            precondition(explicitStamps || seenStamps, "typed links exist from format 5, which has seen stamps")
            hasTypedLinks = true
            body.u8(ChangesetContent.typedLinkTag)
            body.varint(UInt64(classIndex(className)))
            pk.encode(into: &body)
        }
    }

    private mutating func head(_ op: ChangesetContent.Op, _ o: ObjectAddress) {
        body.u8(op.rawValue)
        body.varint(UInt64(o.classIndex))
        o.primaryKey.encode(into: &body)
        instructionCount += 1
    }

    /// Appends an instruction of a format 3 body with the stamp its origin had seen where it
    /// writes (nil: nothing; only erase, set and listSet carry one).
    mutating func append(_ i: SyncInstruction, seen: Stamp?) {
        append(i)
        switch i {
        case .erase, .set, .listSet, .mapSet, .mapRemove:
            guard let seen, seen.hlc != 0 else { body.varint(0); return }
            body.varint(seen.hlc)
            body.varint(nodeRef(seen.node))
            body.varint(UInt64(seen.index))
        default:
            break
        }
    }

    /// Appends an instruction with its own stamp (format 2); `elementNode`: the node of a
    /// list insert's new element.
    mutating func append(_ i: SyncInstruction, stamp: Stamp, elementNode: NodeID? = nil, elementErased: Bool = false) {
        append(i)
        body.varint(stamp.hlc)
        body.varint(nodeRef(stamp.node))
        body.varint(UInt64(stamp.index))
        if case .listInsert = i {
            body.varint(nodeRef(elementNode ?? stamp.node))
            body.u8(elementErased ? 1 : 0)
        }
    }

    mutating func append(_ i: SyncInstruction) {
        switch i {
        case .create(let o): head(.create, o)
        case .erase(let o): head(.erase, o)
        case .set(let o, let p, let v): head(.set, o); body.varint(UInt64(p)); value(v)
        case .addInteger(let o, let p, let d): head(.addInteger, o); body.varint(UInt64(p)); body.zigzag(d)
        case .listInsert(let o, let p, let after, let lamport, let v):
            head(.listInsert, o); body.varint(UInt64(p)); element(after); body.varint(lamport); value(v)
        case .listSet(let o, let p, let e, let v): head(.listSet, o); body.varint(UInt64(p)); element(e); value(v)
        case .listErase(let o, let p, let e): head(.listErase, o); body.varint(UInt64(p)); element(e)
        case .setAdd(let o, let p, let v):
            precondition(explicitStamps || seenStamps, "set instructions exist from format 4, which has seen stamps")
            hasCollectionInstructions = true
            head(.setAdd, o); body.varint(UInt64(p)); value(v)
        case .setRemove(let o, let p, let v, let tags):
            precondition(explicitStamps || seenStamps, "set instructions exist from format 4, which has seen stamps")
            hasCollectionInstructions = true
            head(.setRemove, o); body.varint(UInt64(p)); value(v)
            body.varint(UInt64(tags.count))
            for t in tags {
                body.varint(t.hlc)
                body.varint(nodeRef(t.node))
                body.varint(UInt64(t.index))
            }
        case .mapSet(let o, let p, let key, let v):
            precondition(explicitStamps || seenStamps, "map instructions exist from format 4, which has seen stamps")
            hasCollectionInstructions = true
            head(.mapSet, o); body.varint(UInt64(p)); body.string(key); value(v)
        case .mapRemove(let o, let p, let key):
            precondition(explicitStamps || seenStamps, "map instructions exist from format 4, which has seen stamps")
            hasCollectionInstructions = true
            head(.mapRemove, o); body.varint(UInt64(p)); body.string(key)
        }
    }

    /// The body: header, name tables, then the instructions.
    func finish() -> [UInt8] {
        var w = ByteWriter(capacity: body.count + 64)
        w.u8(explicitStamps ? ChangesetContent.snapshotFormatVersion
            : seenStamps ? (hasTypedLinks ? ChangesetContent.typedLinksFormatVersion
                : hasCollectionInstructions ? ChangesetContent.collectionsFormatVersion : ChangesetContent.seenStampsFormatVersion)
            : ChangesetContent.formatVersion)
        w.varint(UInt64(nodes.count))
        for n in nodes { w.append(n.bytes) }
        w.varint(UInt64(classes.count))
        for c in classes { w.string(c) }
        w.varint(UInt64(properties.count))
        for p in properties { w.string(p) }
        w.varint(UInt64(instructionCount))
        w.append(body.bytes)
        return w.bytes
    }
}

// MARK: decoding

extension ChangesetContent {
    /// Decodes and validates a body made by `origin`. Every count, index, length and value is
    /// checked; malformed input throws `.protocolViolation` and never traps.
    public static func decode(_ body: [UInt8], origin: NodeID) throws -> ChangesetContent {
        try body.withUnsafeBytes { buffer in
            var d = try ChangesetBodyDecoder(buffer, origin: origin)
            var content = ChangesetContent(classes: d.classes, properties: d.properties)
            content.instructions.reserveCapacity(d.instructionCount)
            while let i = try d.next() { content.instructions.append(i) }
            return content
        }
    }
}

/// Reads a changeset body one instruction at a time, in place.
struct ChangesetBodyDecoder {
    private var reader: ByteReader
    let origin: NodeID
    let nodes: [NodeID]
    let classes: [String]
    let properties: [String]
    let instructionCount: Int
    let explicitStamps: Bool
    /// Format 3: the stamp the origin had seen where the instruction `next()` returned last
    /// writes (nil: none, or a format without them).
    let seenStamps: Bool
    /// Format 4 or a snapshot: set and map instructions may come.
    let collections: Bool
    /// Format 5 or a snapshot: typed links may come.
    let typedLinks: Bool
    private(set) var seen: Stamp?
    private(set) var decoded = 0
    /// Format 2: the stamp of the instruction `next()` returned last, and for a list insert its
    /// element's node.
    private(set) var stamp = Stamp.zero
    private(set) var elementNode: NodeID?
    /// Format 2: the list insert is of an element already removed (kept for the structure).
    private(set) var elementErased = false

    init(_ buffer: UnsafeRawBufferPointer, origin: NodeID, snapshot: Bool = false) throws {
        self.origin = origin
        explicitStamps = snapshot
        var r = ByteReader(buffer, context: "changeset", source: .peer)
        do {
            let format = try r.u8()
            let expected = snapshot ? ChangesetContent.snapshotFormatVersion : ChangesetContent.formatVersion
            guard format == expected || (!snapshot && (format == ChangesetContent.seenStampsFormatVersion
                || format == ChangesetContent.collectionsFormatVersion || format == ChangesetContent.typedLinksFormatVersion)) else {
                throw AtollError(.protocolViolation, "\(snapshot ? "snapshot" : "changeset") format \(format) is not supported (this node reads format \(expected)\(snapshot ? "" : ", 3, 4 and 5")); upgrade Atoll")
            }
            seenStamps = format == ChangesetContent.seenStampsFormatVersion || format == ChangesetContent.collectionsFormatVersion
                || format == ChangesetContent.typedLinksFormatVersion
            collections = snapshot || format == ChangesetContent.collectionsFormatVersion || format == ChangesetContent.typedLinksFormatVersion
            typedLinks = snapshot || format == ChangesetContent.typedLinksFormatVersion
            let nodeCount = try r.length(max: r.remaining / 16)
            var nodes: [NodeID] = []
            nodes.reserveCapacity(nodeCount)
            for _ in 0..<nodeCount {
                guard let n = NodeID(bytes: try r.bytes(16)) else { throw AtollError(.protocolViolation, "bad node id") }
                nodes.append(n)
            }
            func names(_ what: String, max: Int) throws -> [String] {
                let count = try r.length(max: r.remaining)
                var result: [String] = []
                result.reserveCapacity(count)
                var seen = Set<String>()
                for _ in 0..<count {
                    let s = try r.string(max: max)
                    guard !s.isEmpty else { throw AtollError(.protocolViolation, "changeset names an empty \(what)") }
                    // An encoder interns names, so a table never repeats one; a repeated name
                    // would give two indices to one name, which no encoder can write back.
                    guard seen.insert(s).inserted else { throw AtollError(.protocolViolation, "changeset names the \(what) '\(s)' twice") }
                    result.append(s)
                }
                return result
            }
            classes = try names("class", max: SchemaLimits.tableNameBytesMax)
            properties = try names("property", max: SchemaLimits.columnNameBytesMax)
            // Every instruction takes at least 3 bytes.
            instructionCount = try r.length(max: r.remaining / 3)
            self.nodes = nodes
        } catch let e as AtollError {
            throw Self.violation(e)
        }
        reader = r
    }

    static func violation(_ e: AtollError) -> AtollError {
        e.kind == .protocolViolation ? e : AtollError(.protocolViolation, "malformed changeset: \(e.message)")
    }

    private mutating func value() throws -> SyncValue {
        let save = reader.offset
        let tag = try reader.u8()
        if tag == ChangesetContent.linkTag {
            let pk = try StorageValue.decode(from: &reader)
            if case .link = pk { throw AtollError(.protocolViolation, "a link's primary key is itself a link") }
            return .link(primaryKey: pk)
        }
        if tag == ChangesetContent.typedLinkTag {
            guard typedLinks else { throw AtollError(.protocolViolation, "a changeset of a format before 5 carries a typed link") }
            guard !classes.isEmpty else { throw AtollError(.protocolViolation, "a typed link names a class but the changeset has none") }
            let c = try reader.length(max: classes.count - 1)
            let pk = try StorageValue.decode(from: &reader)
            switch pk {
            case .null, .int, .string, .uuid, .objectId: break
            default: throw AtollError(.protocolViolation, "a typed link's primary key cannot be a \(pk.typeName)")
            }
            return .typedLink(className: classes[c], primaryKey: pk)
        }
        reader.offset = save
        let v = try StorageValue.decode(from: &reader)
        if case .link = v { throw AtollError(.protocolViolation, "a changeset carries a local object key") }
        if case .typedLink = v { throw AtollError(.protocolViolation, "a changeset carries a local typed link (table and object key)") }
        if v.isNestedCollection { throw AtollError(.protocolViolation, "a changeset carries a nested collection, which sync does not carry") }
        return .value(v)
    }

    /// A map key: a valid one (Realm's rules), or the changeset is malformed.
    private mutating func mapKey() throws -> String {
        let key = try reader.string(max: reader.remaining)
        do {
            try MapKeyRules.validate(key)
        } catch let e as AtollError {
            throw AtollError(.protocolViolation, "a changeset names an invalid map key: \(e.message)")
        }
        return key
    }

    private mutating func node(_ ref: UInt64) throws -> NodeID {
        if ref == 1 { return origin }
        guard ref >= 2, ref - 2 < UInt64(nodes.count) else { throw AtollError(.protocolViolation, "an instruction names node \(ref) of \(nodes.count)") }
        return nodes[Int(ref - 2)]
    }

    private mutating func element() throws -> ElementID? {
        let ref = try reader.varint()
        if ref == 0 { return nil }
        let node = try node(ref)
        let lamport = try reader.varint()
        guard lamport <= SyncLimits.lamportMax else { throw AtollError(.protocolViolation, "element number \(lamport) is out of range") }
        return ElementID(lamport: lamport, node: node)
    }

    /// The next instruction, or nil after the last. Throws `.protocolViolation` on malformed input,
    /// including bytes left over after the declared instructions.
    mutating func next() throws -> SyncInstruction? {
        guard let i = try nextInstruction() else { return nil }
        seen = nil
        if seenStamps {
            switch i {
            case .erase, .set, .listSet, .mapSet, .mapRemove:
                do {
                    let hlc = try reader.varint()
                    if hlc != 0 {
                        let n = try node(try reader.varint())
                        let index = try reader.length(max: Int(UInt32.max))
                        seen = Stamp(hlc: hlc, node: n, index: UInt32(index))
                    }
                } catch let e as AtollError {
                    throw Self.violation(e)
                }
            default:
                break
            }
        }
        guard explicitStamps else { return i }
        do {
            let hlc = try reader.varint()
            let n = try node(try reader.varint())
            let index = try reader.length(max: Int(UInt32.max))
            stamp = Stamp(hlc: hlc, node: n, index: UInt32(index))
            elementNode = nil
            elementErased = false
            if case .listInsert = i {
                elementNode = try node(try reader.varint())
                let flags = try reader.u8()
                guard flags <= 1 else { throw AtollError(.protocolViolation, "unknown element flags \(flags)") }
                elementErased = flags == 1
            }
        } catch let e as AtollError {
            throw Self.violation(e)
        }
        return i
    }

    private mutating func nextInstruction() throws -> SyncInstruction? {
        guard decoded < instructionCount else {
            guard reader.isAtEnd else { throw AtollError(.protocolViolation, "malformed changeset: \(reader.remaining) bytes after its last instruction") }
            return nil
        }
        do {
            let rawOp = try reader.u8()
            guard let op = ChangesetContent.Op(rawValue: rawOp), collections || op.rawValue < ChangesetContent.Op.setAdd.rawValue else {
                throw AtollError(.protocolViolation, "unknown instruction \(rawOp)")
            }
            guard !classes.isEmpty else { throw AtollError(.protocolViolation, "instruction names a class but the changeset has none") }
            let c = try reader.length(max: classes.count - 1)
            let pk = try StorageValue.decode(from: &reader)
            switch pk {
            case .null, .int, .string, .uuid, .objectId: break
            default: throw AtollError(.protocolViolation, "a primary key cannot be a \(pk.typeName)")
            }
            let o = ObjectAddress(classIndex: c, primaryKey: pk)
            func property() throws -> Int {
                guard !properties.isEmpty else { throw AtollError(.protocolViolation, "instruction names a property but the changeset has none") }
                return try reader.length(max: properties.count - 1)
            }
            decoded += 1
            switch op {
            case .create: return .create(o)
            case .erase: return .erase(o)
            case .set: return .set(o, property: try property(), value: try value())
            case .addInteger: return .addInteger(o, property: try property(), delta: try reader.zigzag())
            case .listInsert:
                let p = try property()
                let after = try element()
                let lamport = try reader.varint()
                guard lamport >= 1, lamport <= SyncLimits.lamportMax else { throw AtollError(.protocolViolation, "element number \(lamport) is out of range") }
                return .listInsert(o, property: p, after: after, lamport: lamport, value: try value())
            case .listSet:
                let p = try property()
                guard let e = try element() else { throw AtollError(.protocolViolation, "list write names no element") }
                return .listSet(o, property: p, element: e, value: try value())
            case .listErase:
                let p = try property()
                guard let e = try element() else { throw AtollError(.protocolViolation, "list removal names no element") }
                return .listErase(o, property: p, element: e)
            case .setAdd:
                return .setAdd(o, property: try property(), value: try value())
            case .setRemove:
                let p = try property()
                let v = try value()
                // Each tag takes at least 3 bytes.
                let count = try reader.length(max: reader.remaining / 3)
                var tags: [Stamp] = []
                tags.reserveCapacity(count)
                for _ in 0..<count {
                    let hlc = try reader.varint()
                    let n = try node(try reader.varint())
                    tags.append(Stamp(hlc: hlc, node: n, index: UInt32(try reader.length(max: Int(UInt32.max)))))
                }
                return .setRemove(o, property: p, value: v, tags: tags)
            case .mapSet:
                let p = try property()
                let key = try mapKey()
                return .mapSet(o, property: p, key: key, value: try value())
            case .mapRemove:
                let p = try property()
                return .mapRemove(o, property: p, key: try mapKey())
            }
        } catch let e as AtollError {
            throw Self.violation(e)
        }
    }
}
