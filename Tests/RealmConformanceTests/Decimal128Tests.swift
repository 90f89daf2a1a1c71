// Port of realm-swift's RealmSwift/Tests/Decimal128Tests.swift, expected values unchanged.
// Ported: initialization, addition, subtraction, the six comparison tests, isNaN, min/max,
// magnitude, negate, advance, distance (14 of 17). Not ported: division and multiplication
// (Atoll's Decimal128 adds and subtracts, for sums and averages, but does not multiply or
// divide). `Decimal128` is a struct here, so `negate()` needs a `var`.

import Atoll
import Foundation
import Testing

@Suite struct RealmSwiftDecimal128Tests {
    // MARK: - Initialization
    @Test func testDecimal128Initialization() {
        let d1: Decimal128 = 3.14159
        let d2: Decimal128 = .init(number: 3.14159)
        let d3: Decimal128 = 123
        let d4: Decimal128 = "9.876543"
        let d5 = Decimal128.init(exactly: 0b00000101)

        #expect(d1 == 3.14159)
        #expect(d2 == 3.14159)
        #expect(d3 == 123)
        #expect(d4 == "9.876543")
        #expect(d5 == 5)
    }

    // MARK: Arithmetic
    @Test func testDecimal128Addition() {
        let d1: Decimal128 = 3.144444
        let d2: Decimal128 = 3.144444
        let d3: Decimal128 = "1.234567"
        let d4: Decimal128 = "9.876543"
        let d5 = Decimal128.init(exactly: 0b00000010)
        let d6 = Decimal128.init(exactly: 0b00000001)

        let addition1 = d1+d2
        let addition2 = d3+d4
        let addition3 = d5!+d6!

        #expect(addition1 == 6.288888)
        #expect(addition2.description == "11.11111")
        #expect(d1 == 3.144444)
        #expect(d2 == 3.144444)
        #expect(d3.description == "1.234567")
        #expect(d4.description == "9.876543")
        #expect(addition3 == 3.0)
        #expect(d5 == 2.0)
        #expect(d6 == 1.0)
    }

    @Test func testDecimal128Subtraction() {
        let d1: Decimal128 = 2.5
        let d2: Decimal128 = 3.5
        let d3: Decimal128 = "2.5"
        let d4: Decimal128 = "3.5"
        let d5 = Decimal128.init(exactly: 0b00000010)
        let d6 = Decimal128.init(exactly: 0b00000001)

        let subtraction1 = d1-d2
        let subtraction2 = d3-d4
        let subtraction3 = d5!-d6!

        #expect(subtraction1 == -1.0)
        #expect(subtraction2.description == "-1")
        #expect(d1 == 2.5)
        #expect(d2 == 3.5)
        #expect(d3.description == "2.5")
        #expect(d4.description == "3.5")
        #expect(subtraction3 == 1.0)
        #expect(d5 == 2.0)
        #expect(d6 == 1.0)
    }

    // MARK: Comparison
    @Test func testDecimal128ComparisionEquals() {
        let d1: Decimal128 = 3.14159
        let d2: Decimal128 = .init(number: 3.14159)
        let d3: Decimal128 = 123
        let d4: Decimal128 = "123"
        let d5 = Decimal128.init(exactly: 0b00000101)
        let d6: Decimal128 = 5

        #expect(d1 == d2)
        #expect(d3 == d4)
        #expect(d5 == d6)
    }

    @Test func testDecimal128ComparisionNotEquals() {
        let d1: Decimal128 = 3.14159
        let d2: Decimal128 = .init(number: 3.14159)
        let d3: Decimal128 = 123
        let d4: Decimal128 = "123"
        let d5 = Decimal128.init(exactly: 0b00000101)
        let d6: Decimal128 = 5

        #expect(!(d1 != d2))
        #expect(!(d3 != d4))
        #expect(!(d5 != d6))
    }

    @Test func testDecimal128ComparisionGreaterThan() {
        let d1: Decimal128 = 3.14160
        let d2: Decimal128 = .init(number: 3.14159)
        let d3: Decimal128 = 124
        let d4: Decimal128 = "123"
        let d5 = Decimal128.init(exactly: 0b00000001)
        let d6: Decimal128 = 5

        #expect(d1 > d2)
        #expect(d3 > d4)
        #expect(!(d5! > d6))
    }

    @Test func testDecimal128ComparisionGreaterThanEquals() {
        let d1: Decimal128 = 3.14159
        let d2: Decimal128 = .init(number: 3.14159)
        let d3: Decimal128 = 124
        let d4: Decimal128 = "123"
        let d5 = Decimal128.init(exactly: 0b00000001)
        let d6: Decimal128 = 5

        #expect(d1 >= d2)
        #expect(d3 >= d4)
        #expect(!(d5! >= d6))
    }

    @Test func testDecimal128ComparisionLessThan() {
        let d1: Decimal128 = 3.14159
        let d2: Decimal128 = .init(number: 3.14160)
        let d3: Decimal128 = 122
        let d4: Decimal128 = "123"
        let d5 = Decimal128.init(exactly: 0b00000010)
        let d6: Decimal128 = 1

        #expect(d1 < d2)
        #expect(d3 < d4)
        #expect(!(d5! < d6))
    }

    @Test func testDecimal128ComparisionLessThanEqual() {
        let d1: Decimal128 = 3.14160
        let d2: Decimal128 = .init(number: 3.14160)
        let d3: Decimal128 = 123
        let d4: Decimal128 = "123"
        let d5 = Decimal128.init(exactly: 0b00000010)
        let d6: Decimal128 = 1

        #expect(d1 <= d2)
        #expect(d3 <= d4)
        #expect(!(d5! <= d6))
    }

    // MARK: Miscellaneous
    @Test func testIsNaN() {
        let d1: Decimal128 = .init(value: NSNull.init())
        #expect(d1.isNaN)
        #expect(d1.isSignaling)
        #expect(d1.isSignalingNaN)
    }

    @Test func testMinMax() {
        let min: Decimal128 = .min
        let max: Decimal128 = .max
        #expect(max > min)
        #expect(min < max)
    }

    @Test func testMagnitude() {
        let d1: Decimal128 = -123.321
        let exp1: Decimal128 = 123.321
        let d2: Decimal128 = 456.321
        let exp2: Decimal128 = 456.321
        #expect(d1.magnitude == exp1)
        #expect(d2.magnitude == exp2)
    }

    @Test func testNegate() {
        var d1: Decimal128 = -123.321
        var d2: Decimal128 = 456.321
        let exp1: Decimal128 = 123.321
        let exp2: Decimal128 = -456.321
        d1.negate()
        d2.negate()
        #expect(d1 == exp1)
        #expect(d2 == exp2)
    }

    @Test func testAdvance() {
        let d1: Decimal128 = -123.321
        let result1 = d1.advanced(by: -123.321)
        let d2: Decimal128 = -150.0
        let result2 = d2.advanced(by: 300.0)
        #expect(result1 == -246.642)
        #expect(result2 == 150.0)
    }

    @Test func testDistance() {
        let d: Decimal128 = 10.0
        let result1 = d.distance(to: 5.0)
        let result2 = d.distance(to: 15.0)
        #expect(result1 == -5.0)
        #expect(result2 == 5.0)
    }
}
