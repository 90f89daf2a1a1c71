import Foundation
import Testing
@testable import AtollStorage

/// `Table.listApply`: several edits of one list as one list write, logged as per-element
/// instructions, checked before anything changes.
@Suite struct ListEditTests {
    static let dogSpec = TransactionLogTests.dogSpec

    @Test func editsApplyInOrderAndLogOneInstructionEach() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "list-edits-\(UUID())", historyRetainedVersions: 10))
        var w = try db.beginWrite()
        let dog = try w.createTable(Self.dogSpec)
        _ = try w.commit()
        let d = { (id: Int64) in ObjectKey(primaryKey: id) }

        w = try db.beginWrite()
        let t = try w.table(dog)
        for id: Int64 in 1...3 { try t.create(primaryKey: .int(id)) }
        try t.listApply(d(1), 5, [.insert(0, .string("a")), .insert(1, .string("b")), .insert(2, .string("c")),
                                  .erase(1), .set(0, .string("z")), .move(from: 0, to: 1), .move(from: 1, to: 1)])
        try t.listApply(d(1), 4, [.insert(0, .link(d(2))), .insert(0, .link(d(3))), .erase(1)])
        #expect(try t.listValues(d(1), 5) == [.string("c"), .string("z")])
        #expect(try t.listValues(d(1), 4) == [.link(d(3))])
        #expect(try t.backlinks(to: d(3), from: dog, column: 4) == [d(1)], "backlinks follow the edits")
        #expect(try t.backlinks(to: d(2), from: dog, column: 4).isEmpty)
        let version = try w.commit()

        let r = try db.beginRead()
        defer { r.close() }
        let log = try TransactionLogReader.decodeAll(try #require(try r.log(of: version)))
        let listInstructions = log.filter {
            switch $0 {
            case .listInsert, .listErase, .listSet, .listMove: true
            default: false
            }
        }
        #expect(listInstructions == [
            .listInsert(dog, d(1), column: 5, index: 0, value: .string("a")), .listInsert(dog, d(1), column: 5, index: 1, value: .string("b")),
            .listInsert(dog, d(1), column: 5, index: 2, value: .string("c")), .listErase(dog, d(1), column: 5, index: 1, implicit: false),
            .listSet(dog, d(1), column: 5, index: 0, value: .string("z")), .listMove(dog, d(1), column: 5, from: 0, to: 1),
            .listInsert(dog, d(1), column: 4, index: 0, value: .link(d(2))), .listInsert(dog, d(1), column: 4, index: 0, value: .link(d(3))),
            .listErase(dog, d(1), column: 4, index: 1, implicit: false),
        ])
    }

    @Test func anInvalidEditChangesNothing() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "list-edits-\(UUID())"))
        let w = try db.beginWrite()
        let dog = try w.createTable(Self.dogSpec)
        let t = try w.table(dog)
        let k = try t.create(primaryKey: .int(1))
        try t.listApply(k, 5, [.insert(0, .string("a"))])
        #expect { try t.listApply(k, 5, [.insert(1, .string("b")), .erase(5)]) } throws: { ($0 as? AtollError)?.kind == .invalidArgument }
        #expect { try t.listApply(k, 5, [.insert(0, .null)]) } throws: { ($0 as? AtollError)?.kind == .requiredValueMissing }
        #expect(try t.listValues(k, 5) == [.string("a")])
        w.rollback()
    }
}
