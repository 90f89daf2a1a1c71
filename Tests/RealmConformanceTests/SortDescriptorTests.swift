// Port of realm-swift's RealmSwift/Tests/SortDescriptorTests.swift (all 5 tests), expected
// values unchanged.

import Atoll
import Testing

@Suite struct SortDescriptorTests {
    let sortDescriptor = SortDescriptor(keyPath: "property")

    @Test func testAscendingDefaultsToTrue() {
        #expect(sortDescriptor.ascending)
    }

    @Test func testReversedReturnsReversedDescriptor() {
        let reversed = sortDescriptor.reversed()
        #expect(reversed.keyPath == sortDescriptor.keyPath, "Key path should stay the same when reversed.")
        #expect(!reversed.ascending)
        #expect(reversed.reversed().ascending)
    }

    @Test func testDescription() {
        #expect(sortDescriptor.description == "SortDescriptor(keyPath: property, direction: ascending)")
    }

    @Test func testStringLiteralConvertible() {
        let literalSortDescriptor: Atoll.SortDescriptor = "property"
        #expect(sortDescriptor == literalSortDescriptor, "SortDescriptor should conform to StringLiteralConvertible")
    }

    @Test func testComparison() {
        let sortDescriptor1 = SortDescriptor(keyPath: "property1", ascending: true)
        let sortDescriptor2 = SortDescriptor(keyPath: "property1", ascending: false)
        let sortDescriptor3 = SortDescriptor(keyPath: "property2", ascending: true)
        let sortDescriptor4 = SortDescriptor(keyPath: "property2", ascending: false)

        #expect(sortDescriptor1 != sortDescriptor2, "Should not match")
        #expect(sortDescriptor1 != sortDescriptor3, "Should not match")
        #expect(sortDescriptor1 != sortDescriptor4, "Should not match")
        #expect(sortDescriptor2 != sortDescriptor3, "Should not match")
        #expect(sortDescriptor2 != sortDescriptor4, "Should not match")
        #expect(sortDescriptor3 != sortDescriptor4, "Should not match")

        let sortDescriptor5 = SortDescriptor(keyPath: "property1", ascending: true)
        let sortDescriptor6 = SortDescriptor(keyPath: "property2", ascending: true)
        #expect(sortDescriptor1 == sortDescriptor5, "Should match")
        #expect(sortDescriptor3 == sortDescriptor6, "Should match")
    }
}
