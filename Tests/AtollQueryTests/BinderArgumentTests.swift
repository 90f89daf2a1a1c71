import AtollQuery
import AtollStorage
import Foundation
import Testing

private struct Unsupported {}

/// `$n`, `%@`, `%d`, `%f`, `%K`, and the Swift types accepted as arguments.
@Suite struct BinderArgumentTests {
    static let scalarArguments: [(argument: any Sendable, query: String, expected: String)] = [
        (5, "age == $0", "age == int(5)"),
        (Int8(-5), "age == $0", "age == int(-5)"),
        (Int16(5), "age == $0", "age == int(5)"),
        (Int32(5), "age == $0", "age == int(5)"),
        (Int64.max, "age == $0", "age == int(9223372036854775807)"),
        (UInt(5), "age == $0", "age == int(5)"),
        (UInt8(255), "age == $0", "age == int(255)"),
        (UInt16(5), "age == $0", "age == int(5)"),
        (UInt32(5), "age == $0", "age == int(5)"),
        (UInt64(5), "age == $0", "age == int(5)"),
        (2.5, "weight > $0", "weight > double(2.5)"),
        (Float(2.5), "weight > $0", "weight > double(2.5)"),
        (3, "weight > $0", "weight > double(3.0)"),
        (3.0, "age > $0", "age > int(3)"),
        (3.5, "age > $0", "age > double(3.5)"),
        (Float(3), "age > $0", "age > int(3)"),
        (true, "isActive == $0", "isActive == bool(true)"),
        ("Ali", "name == $0", "name == string(\"Ali\")"),
        ("Alice".dropFirst(2), "name == $0", "name == string(\"ice\")"),
        (Date(timeIntervalSince1970: 1.5), "born > $0", "born > ts(1,500000000)"),
        (Date(timeIntervalSince1970: -1.5), "born > $0", "born > ts(-1,-500000000)"),
        (Date(timeIntervalSince1970: 1_613_842_215), "born > $0", "born > ts(1613842215,0)"),
        (try! ObjectId(string: "507f1f77bcf86cd799439011"), "id == $0", "id == oid(507f1f77bcf86cd799439011)"),
        (UUID(uuidString: "d1b186e1-e9e0-4768-a1a7-c492519d47ee")!, "chip == $0", "chip == uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)"),
        (QueryValue.int(9), "age == $0", "age == int(9)"),
        (Optional(5), "age == $0", "age == int(5)"),
        (NSNumber(value: 5), "age == $0", "age == int(5)"),
        (NSNumber(value: true), "isActive == $0", "isActive == bool(true)"),
        (NSNumber(value: 2.5), "weight == $0", "weight == double(2.5)"),
    ]

    @Test(arguments: 0..<scalarArguments.count)
    func convertsSwiftValues(_ index: Int) throws {
        let (argument, query, expected) = Self.scalarArguments[index]
        let className = query.hasPrefix("chip") ? "Dog" : "Person"
        #expect(try bound(query, on: className, [argument]) == expected)
    }

    @Test func convertsDataToBytes() throws {
        #expect(try bound("dataCol == $0", on: "AllTypes", [Data([1, 2, 3])]) == "dataCol == data(1,2,3)")
        #expect(try bound("dataCol BEGINSWITH %@", on: "AllTypes", [Data([0xFF])]) == "dataCol BEGINSWITH data(255)")
    }

    @Test func collectionsBecomeListsForInAndBetween() throws {
        #expect(try bound("age IN $0", on: "Person", [[1, 2, 3]]) == "age IN [int(1), int(2), int(3)]")
        #expect(try bound("age IN $0", on: "Person", [[Int]()]) == "age IN []")
        #expect(try bound("name IN %@", on: "Person", [Set(["a"])]) == "name IN [string(\"a\")]")
        #expect(try bound("age == $0", on: "Person", [[1, 2]]) == "age IN [int(1), int(2)]")
        #expect(try bound("age BETWEEN $0", on: "Person", [[1, 5]]) == "age BETWEEN [int(1), int(5)]")
        #expect(try bound("age BETWEEN {$0, $1}", on: "Person", [1, 5.5]) == "age BETWEEN [int(1), double(5.5)]")
        #expect(try bound("nickname IN $0", on: "Person", [["a", nil] as [String?]]) == "nickname IN [string(\"a\"), null]")
        #expect(try bound("weight IN $0", on: "Person", [[1, 2.5] as [Any]]) == "weight IN [double(1.0), double(2.5)]")
        #expect(try bound("progressMinutes IN { $0, $1, $2, $3, $4, $5 }", on: "Item", [10, 20, 30, 40, 50, 60])
            == "progressMinutes IN [int(10), int(20), int(30), int(40), int(50), int(60)]")
    }

    @Test func formatPlaceholdersTakeArgumentsInOrder() throws {
        #expect(try bound("%K > %@ AND %K == %@", on: "Task", ["progressMinutes", 1, "name", "Ali"])
            == "(progressMinutes > int(1) AND name == string(\"Ali\"))")
        #expect(try bound("age > %d AND weight < %f", on: "Person", [3, 2]) == "(age > int(3) AND weight < double(2.0))")
        #expect(try bound("age > %ld", on: "Person", [4.0]) == "age > int(4)")
        #expect(try bound("%K == 3", on: "Dog", ["owner.age"]) == "owner.age == int(3)")
        #expect(try bound("%K.name == 'x'", on: "Dog", ["owner"]) == "owner.name == string(\"x\")")
        #expect(try bound("owner.%K == 'x'", on: "Dog", ["name"]) == "owner.name == string(\"x\")")
        #expect(try bound("%K.@count > 1", on: "Person", ["dogs"]) == "dogs.@count > int(1)")
        #expect(try bound("SUBQUERY(dogs, $d, %K > %@).@count > 0", on: "Person", ["age", 2]) == "SUBQUERY(dogs, age > int(2)).@count > int(0)")
    }

    @Test func positionalArgumentsMayRepeatAndComeInAnyOrder() throws {
        #expect(try bound("age > $1 AND age < $0 AND weight != $1", on: "Person", [9, 1])
            == "(age > int(1) AND age < int(9) AND weight != double(1.0))")
    }

    @Test func extraArgumentsAreIgnored() throws {
        #expect(try bound("age > $0", on: "Person", [1, "unused"]) == "age > int(1)")
    }

    static let rejected: [(query: String, arguments: [any Sendable], fragments: [String])] = [
        ("age == $2", [1, 2], ["query uses $2 but only 2 arguments were given", "offset 7"]),
        ("age == $0", [], ["query uses $0 but only 0 arguments were given"]),
        ("age == $1", [1], ["query uses $1 but only 1 argument was given"]),
        ("age == %@ AND name == %@", [1], ["query has 2 placeholders but only 1 argument was given", "offset 22"]),
        ("%K == 1", [], ["query has 1 placeholders but only 0 arguments were given"]),
        ("age == $0", [Unsupported()], ["argument 0 ($0) has unsupported type Unsupported"]),
        ("age == $0", [UInt64.max], ["unsupported type UInt64"]),
        ("age IN $0", [[[1]]], ["unsupported type"]),
        ("age IN $0", [["a": 1]], ["unsupported type"]),
        ("age == %d", ["x"], ["%d needs an integer but argument 0 is string 'x'", "offset 7"]),
        ("age == %d", [2.5], ["%d needs an integer"]),
        ("weight == %f", [true], ["%f needs a number but argument 0 is bool true"]),
        ("age == $0", ["5"], ["cannot compare int property 'age' with string '5' (argument $0)", "offset 7"]),
        ("name == %@", [5], ["cannot compare string property 'name' with int 5 (argument 0 (%@))"]),
        ("isActive == $0", [1], ["cannot compare bool property 'isActive' with int 1"]),
        ("born == $0", [1_613_842_215], ["cannot compare date property 'born' with int"]),
        ("id == $0", ["507f1f77bcf86cd799439011"], ["cannot compare objectId property 'id' with string"]),
        ("name == $0", [Data([1])], ["cannot compare string property 'name' with data (1 bytes)"]),
        ("age IN $0", [5], ["IN needs a list on its right side"]),
        ("age BETWEEN $0", [[1, 2, 3]], ["BETWEEN needs exactly two values", "has 3"]),
        ("%K == 1", [5], ["%K needs a key path string, but argument 0 is not a string"]),
        ("%K == 1", ["no.such"], ["unknown property 'no' on Person"]),
        ("%K == 1", ["a b"], ["argument 0 for %K is not a valid key path: 'a b'"]),
        ("%K == 1", ["age == 1"], ["not a valid key path"]),
        ("%K == 1", ["%K"], ["not a valid key path"]),
        ("owner.%K == 1", ["$x.age"], ["starts with a variable"]),
    ]

    @Test(arguments: 0..<rejected.count)
    func rejectsBadArguments(_ index: Int) {
        let (query, arguments, fragments) = Self.rejected[index]
        expectInvalid(query, on: "Person", arguments, contains: fragments)
    }
}
