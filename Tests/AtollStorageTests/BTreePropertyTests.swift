import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Random operations on the B+tree checked against a dictionary, with the tree's invariants and
/// the file's space accounting (every page is used exactly once or free) checked as it goes.
@Suite struct BTreePropertyTests {

    func randomKey(_ rng: inout SeededGenerator) -> [UInt8] {
        let long = Bool.random(using: &rng)
        let len = Int.random(in: 1...(long ? 200 : 8), using: &rng)
        var k: [UInt8] = []
        for _ in 0..<len { k.append(UInt8.random(in: 0...15, using: &rng)) }
        return k
    }

    func randomValue(_ rng: inout SeededGenerator) -> [UInt8] {
        let roll = Int.random(in: 0..<100, using: &rng)
        let range = roll < 70 ? 0...40 : roll < 95 ? 0...900 : 900...20_000
        let len = Int.random(in: range, using: &rng)
        var v: [UInt8] = []
        for _ in 0..<len { v.append(UInt8.random(in: 0...255, using: &rng)) }
        return v
    }

    /// Pages reachable from `roots` plus pages in the free list must be exactly 3..<pageCount.
    func checkSpace(file: MappedFile, root: RootRecord, treeRoots: [PageNumber]) throws {
        let base = try file.mapping(covering: Int(root.pageCount) * 4096)
        let space = PageSpace(base: base, pageCount: root.pageCount)
        final class Seen { var marks: [UInt8] = [] }
        let box = Seen()
        box.marks = [UInt8](repeating: 0, count: Int(root.pageCount))
        var verifier = BTreeVerifier(space: space)
        verifier.visit = { n, count in
            for i in 0..<count {
                let page = Int(n) + i
                guard box.marks[page] == 0 else { throw AtollError.corrupted("page \(page) referenced twice") }
                box.marks[page] = 1
            }
        }
        for r in treeRoots + [root.freeListRoot] { _ = try verifier.verify(root: r, name: "tree") }
        var cursor = BTreeCursor(root: root.freeListRoot, space: space)
        var more = try cursor.first()
        var freeCount = 0
        while more {
            let v = try cursor.value()
            for i in 0..<(v.count / 4) {
                let n = Int(v.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
                if n == 0 { continue }
                #expect(box.marks[n] == 0, "free page \(n) is also in use")
                box.marks[n] = 2
                freeCount += 1
            }
            more = try cursor.next()
        }
        let unaccounted = (3..<Int(root.pageCount)).filter { box.marks[$0] == 0 }
        #expect(unaccounted.isEmpty, "pages neither used nor free: \(unaccounted.prefix(10))")
        #expect(freeCount == Int(root.freePageCount))
    }

    /// The pages of a test file, checksummed and checked like a database's of the current format.
    static func store(_ file: MappedFile) throws -> PageStore {
        try PageStore(file: file, checksum: PageChecksum(formatVersion: FileFormat.formatVersion, fileId: Array(0..<16)), cache: nil)
    }

    /// `ATOLL_PROPERTY_SEEDS` runs more seeds (default 4).
    static let seeds: [UInt64] = Array(1...UInt64(max(1, ProcessInfo.processInfo.environment["ATOLL_PROPERTY_SEEDS"].flatMap(Int.init) ?? 4)))

    /// After every put and delete: the key reads back as the model says and the tree's
    /// invariants hold (order within and across nodes, bounds, equal leaf depth, cells inside
    /// the heap, blob references) with as many entries as the model. After every transaction:
    /// point lookups, a full ordered scan, and the file's space accounting.
    @Test(arguments: seeds)
    func randomOperationsMatchDictionary(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let file = try MappedFile(anonymousNamed: "btree-test")
        _ = try file.grow(toAtLeast: 3 * 4096)
        var root = RootRecord()
        var treeRoot: PageNumber = 0
        var model: [[UInt8]: [UInt8]] = [:]
        var version: UInt64 = 1
        let store = try Self.store(file)
        for _ in 0..<30 { // transactions
            let a = try PageAllocator(store: store, root: root, reusableVersionMax: version - 1)
            for _ in 0..<Int.random(in: 1...120, using: &rng) {
                let roll = Int.random(in: 0..<100, using: &rng)
                if roll < 60 || model.isEmpty {
                    let k = randomKey(&rng), v = randomValue(&rng)
                    try k.withUnsafeBytes { kb in try v.withUnsafeBytes { vb in try BTree.put(root: &treeRoot, key: kb, value: vb, allocator: a) } }
                    model[k] = v
                    try checkStep(treeRoot, a.space, key: k, model)
                } else {
                    var k = randomKey(&rng)
                    if roll < 90, let existing = model.keys.randomElement(using: &rng) { k = existing }
                    let existed = try k.withUnsafeBytes { try BTree.delete(root: &treeRoot, key: $0, allocator: a) }
                    #expect(existed == (model.removeValue(forKey: k) != nil))
                    try checkStep(treeRoot, a.space, key: k, model)
                }
            }
            // Point lookups and a full ordered scan agree with the model.
            for (k, v) in model.prefix(50) {
                let got = try k.withUnsafeBytes { try BTree.get(root: treeRoot, key: $0, space: a.space).map { Array($0) } }
                #expect(got == v)
            }
            var cursor = BTreeCursor(root: treeRoot, space: a.space)
            var scanned: [[UInt8]] = []
            var more = try cursor.first()
            while more { scanned.append(Array(try cursor.key())); more = try cursor.next() }
            let expected = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(scanned == expected)

            _ = try a.saveFreeList(version: version, shrink: Int.random(in: 0..<4, using: &rng) == 0)
            a.checksumFreshPages()
            root.version = version
            root.pageCount = a.pageCount
            root.freePageCount = a.freePageCount
            root.freeListRoot = a.freeListRoot
            root.freeListSerial = a.freeListSerial
            try checkSpace(file: file, root: root, treeRoots: [treeRoot])
            version += 1
        }
    }

    func checkStep(_ root: PageNumber, _ space: PageSpace, key: [UInt8], _ model: [[UInt8]: [UInt8]]) throws {
        let got = try key.withUnsafeBytes { try BTree.get(root: root, key: $0, space: space).map { Array($0) } }
        #expect(got == model[key])
        let summary = try BTreeVerifier(space: space).verify(root: root, name: "tree")
        #expect(summary.entries == model.count)
    }

    @Test func deletingEverythingEmptiesTheTreeAndFreesItsPages() throws {
        let file = try MappedFile(anonymousNamed: "btree-test")
        _ = try file.grow(toAtLeast: 3 * 4096)
        var root = RootRecord()
        var treeRoot: PageNumber = 0
        let store = try Self.store(file)
        var a = try PageAllocator(store: store, root: root, reusableVersionMax: 0)
        for i in 0..<5000 {
            var k = ByteWriter(); k.u64BigEndian(UInt64(i))
            let v = [UInt8](repeating: UInt8(i & 255), count: 30)
            try k.bytes.withUnsafeBytes { kb in try v.withUnsafeBytes { try BTree.put(root: &treeRoot, key: kb, value: $0, allocator: a) } }
        }
        _ = try a.saveFreeList(version: 1, shrink: false)
        a.checksumFreshPages()
        root.version = 1; root.pageCount = a.pageCount; root.freePageCount = a.freePageCount
        root.freeListRoot = a.freeListRoot; root.freeListSerial = a.freeListSerial
        let pagesAfterInsert = root.pageCount
        // Sequential appends fill pages nearly completely.
        #expect(Int(pagesAfterInsert) < 5000 * 36 / 4000 + 15)
        a = try PageAllocator(store: store, root: root, reusableVersionMax: 1)
        for i in 0..<5000 {
            var k = ByteWriter(); k.u64BigEndian(UInt64(i))
            let existed = try k.bytes.withUnsafeBytes { try BTree.delete(root: &treeRoot, key: $0, allocator: a) }
            #expect(existed)
        }
        #expect(treeRoot == 0)
        _ = try a.saveFreeList(version: 2, shrink: false)
        root.version = 2; root.pageCount = a.pageCount; root.freePageCount = a.freePageCount
        root.freeListRoot = a.freeListRoot; root.freeListSerial = a.freeListSerial
        try checkSpace(file: file, root: root, treeRoots: [])
    }
}
