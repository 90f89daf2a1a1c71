import AtollQuery
import AtollStorage
import Foundation
import Testing

/// Comparison operators on every value type, with constants converted to the property's type.
@Suite struct BinderComparisonTests {
    static let cases: [(query: String, className: String, expected: String)] = [
        ("age > 3", "Person", "age > int(3)"),
        ("age >= 3", "Person", "age >= int(3)"),
        ("age < 3", "Person", "age < int(3)"),
        ("age <= 3", "Person", "age <= int(3)"),
        ("age = 3", "Person", "age == int(3)"),
        ("age <> 3", "Person", "age != int(3)"),
        ("age =< 3", "Person", "age <= int(3)"),
        ("age => 3", "Person", "age >= int(3)"),
        // Either side may be the constant.
        ("3 < age", "Person", "age > int(3)"),
        ("3 >= age", "Person", "age <= int(3)"),
        ("'Ali' == name", "Person", "name == string(\"Ali\")"),
        // Numbers of any type compare with each other.
        ("age == 3.0", "Person", "age == int(3)"),
        ("age > 2.5", "Person", "age > double(2.5)"),
        ("weight == 3", "Person", "weight == double(3.0)"),
        ("floatCol == 1.5", "AllTypes", "floatCol == float(1.5)"),
        ("floatCol < 2", "AllTypes", "floatCol < float(2.0)"),
        ("doubleCol >= -0x10", "AllTypes", "doubleCol >= double(-16.0)"),
        // BETWEEN and IN.
        ("age BETWEEN {1, 5}", "Person", "age BETWEEN [int(1), int(5)]"),
        ("weight BETWEEN {1, 5.5}", "Person", "weight BETWEEN [double(1.0), double(5.5)]"),
        ("born BETWEEN {2021-01-01@00:00:00, T1613842215:0}", "Person", "born BETWEEN [ts(1609459200,0), ts(1613842215,0)]"),
        ("age IN {1, 2, 3}", "Person", "age IN [int(1), int(2), int(3)]"),
        ("age IN {}", "Person", "age IN []"),
        ("age == {18, 21}", "Person", "age IN [int(18), int(21)]"),
        ("{18, 21} == age", "Person", "age IN [int(18), int(21)]"),
        ("name IN {'Ali', 'Jamie'}", "Person", "name IN [string(\"Ali\"), string(\"Jamie\")]"),
        // Quantifiers on a right-hand list (Realm Query Language).
        ("age == ANY {18, 21}", "Person", "age IN [int(18), int(21)]"),
        ("age == SOME {18}", "Person", "age IN [int(18)]"),
        ("age == NONE {18, 21}", "Person", "NOT age IN [int(18), int(21)]"),
        ("name ==[c] NONE {'a'}", "Person", "NOT name IN[c] [string(\"a\")]"),
        ("ANY tags == ANY {'a', 'b'}", "Person", "ANY tags IN [string(\"a\"), string(\"b\")]"),
        // Other operators and quantifiers on a right-hand list: one comparison per element (realm-core).
        ("age == ALL {1, 2}", "Person", "(age == int(1) AND age == int(2))"),
        ("age > ANY {1, 2}", "Person", "(age > int(1) OR age > int(2))"),
        ("age != NONE {1}", "Person", "NOT age != int(1)"),
        ("name CONTAINS[c] {'a', 'b'}", "Person", "(name CONTAINS[c] string(\"a\") OR name CONTAINS[c] string(\"b\"))"),
        ("name ENDSWITH {}", "Person", "()"),  // an empty OR: false
        ("ALL tags BEGINSWITH ALL {'a', 'b'}", "Person", "(ALL tags BEGINSWITH string(\"a\") AND ALL tags BEGINSWITH string(\"b\"))"),
        ("NONE tags CONTAINS {'a', 'b'}", "Person", "(NONE tags CONTAINS string(\"a\") AND NONE tags CONTAINS string(\"b\"))"),
        // A quantified list on the left: each element against the right side.
        ("ANY {1, 2} IN ANY scores", "Person", "(ANY scores == int(1) OR ANY scores == int(2))"),
        ("ALL {} IN ALL scores", "Person", "()"),  // an empty AND: true
        ("ALL {'a', 'b'} IN tags", "Person", "(ANY tags == string(\"a\") AND ANY tags == string(\"b\"))"),
        ("NONE {4} < ALL scores", "Person", "NOT ALL scores > int(4)"),
        ("5 == ANY scores", "Person", "ANY scores == int(5)"),
        // Other types.
        ("name < 'b'", "Person", "name < string(\"b\")"),
        ("isActive == true", "Person", "isActive == bool(true)"),
        ("isActive != NO", "Person", "isActive != bool(false)"),
        ("born > 2021-02-20@17:30:15", "Person", "born > ts(1613842215,0)"),
        ("id == oid(507f1f77bcf86cd799439011)", "Person", "id == oid(507f1f77bcf86cd799439011)"),
        ("id < oid(507f1f77bcf86cd799439011)", "Person", "id < oid(507f1f77bcf86cd799439011)"),
        ("uuidCol == uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)", "AllTypes", "uuidCol == uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)"),
        ("dataCol == B64\"SGk=\"", "AllTypes", "dataCol == data(72,105)"),
        ("dataCol == 'Hi'", "AllTypes", "dataCol == data(72,105)"),
        ("stringCol == B64\"SGk=\"", "AllTypes", "stringCol == string(\"Hi\")"),
        ("boolCol == false", "AllTypes", "boolCol == bool(false)"),
        ("dateCol <= T-5:-1", "AllTypes", "dateCol <= ts(-5,-1)"),
        // Key path against key path.
        ("name == nickname", "Person", "name == nickname"),
        ("age < weight", "Person", "age < weight"),
        ("bestFriend == bestFriend.bestFriend", "Person", "bestFriend == bestFriend.bestFriend"),
        ("owner.age > age", "Dog", "owner.age > age"),
        // Logic.
        ("TRUEPREDICATE", "Person", "TRUE"),
        ("FALSEPREDICATE", "Person", "FALSE"),
        ("age > 1 AND (name == 'a' OR NOT isActive == true)", "Person",
         "(age > int(1) AND (name == string(\"a\") OR NOT isActive == bool(true)))"),
        ("!(age > 1) || age < 0 && age != 5", "Person", "(NOT age > int(1) OR (age < int(0) AND age != int(5)))"),
    ]

    @Test(arguments: cases)
    func bindsToTheExpectedTree(_ query: String, _ className: String, _ expected: String) throws {
        #expect(try bound(query, on: className) == expected)
    }

    @Test func recordsTheValueTypeAndOffsetOfEachComparison() throws {
        let query = try BoundQuery("name == 'x' AND weight > 2", on: "Person", schema: TestSchema.schema)
        guard case .and(let operands) = query.predicate, case .comparison(let first) = operands[0], case .comparison(let second) = operands[1] else {
            Issue.record("unexpected shape")
            return
        }
        #expect(first.valueType == .string && first.offset == 5)
        #expect(second.valueType == .double && second.offset == 23)
        #expect(second.quantifier == .any)
    }

    @Test func resolvesPropertiesWithTheirSchemaInformation() throws {
        let query = try BoundQuery("id == $0", on: "Person", schema: TestSchema.schema, arguments: [ObjectId()])
        guard case .comparison(let comparison) = query.predicate, case .keyPath(let path) = comparison.left else {
            Issue.record("unexpected shape")
            return
        }
        #expect(path.rootClassName == "Person")
        #expect(path.steps.count == 1)
        #expect(path.steps[0].className == "Person")
        #expect(path.steps[0].property.isIndexed)
        #expect(path.steps[0].property.columnIndex == 11)
        #expect(!path.isToMany && !path.canBeNull)
    }
}

/// nil and NULL, with Realm's rules for optional and required properties.
@Suite struct BinderNullTests {
    static let accepted: [(query: String, className: String, expected: String)] = [
        ("nickname == nil", "Person", "nickname == null"),
        ("nickname == NULL", "Person", "nickname == null"),
        ("nickname != nil", "Person", "nickname != null"),
        ("nil == nickname", "Person", "nickname == null"),
        ("owner == nil", "Dog", "owner == null"),
        ("owner.age == nil", "Dog", "owner.age == null"),
        ("owner.bestFriend.name == nil", "Dog", "owner.bestFriend.name == null"),
        ("ratings == nil", "Person", "ANY ratings == null"),
        ("nickname IN {nil, 'x'}", "Person", "nickname IN [null, string(\"x\")]"),
        ("name CONTAINS nil", "Person", "name CONTAINS null"),
        ("NULL CONTAINS name", "Person", "FALSE"),
        ("NULL LIKE[c] nickname", "Person", "nickname == null"),
        // Values that cannot be nil compared with nil: allowed, never equal (realm-core).
        ("age == nil", "Person", "age == null"),
        ("nil != name", "Person", "name != null"),
        ("age IN {1, nil}", "Person", "age IN [int(1), null]"),
        ("scores == nil", "Person", "ANY scores == null"),
        ("tasks.@sum.priority == nil", "Project", "@sum(tasks.priority) == null"),
        ("tasks.@count == nil", "Project", "tasks.@count == null"),
        ("name BEGINSWITH NULL", "Person", "name BEGINSWITH null"),
        ("tasks.@min.priority == nil", "Project", "@min(tasks.priority) == null"),
        ("tasks.@avg.priority != nil", "Project", "@avg(tasks.priority) != null"),
        ("assignee == nil", "Item", "assignee == null"),
        ("quota == nil", "Project", "quota == null"),
        // Orderings with nil, as Realm's engine evaluates them: nil is ordered only with nil.
        // Strings: nil is the smallest string.
        ("nickname > nil", "Person", "nickname != null"),
        ("nickname >= nil", "Person", "TRUE"),
        ("nickname < nil", "Person", "FALSE"),
        ("nil >= nickname", "Person", "nickname == null"),
        ("nickname <= NULL", "Person", "nickname == null"),
        ("name > nil", "Person", "TRUE"),
        ("name <= nil", "Person", "FALSE"),
        // Other values: nil is ordered only with nil.
        ("age >= nil", "Person", "FALSE"),
        ("age < nil", "Person", "FALSE"),
        ("quota >= nil", "Project", "quota == null"),
        ("quota > nil", "Project", "FALSE"),
        ("tasks.@min.priority <= nil", "Project", "@min(tasks.priority) == null"),
    ]

    @Test(arguments: accepted)
    func acceptsNilWhereAValueCanBeNil(_ query: String, _ className: String, _ expected: String) throws {
        #expect(try bound(query, on: className) == expected)
    }

    @Test func acceptsNilArguments() throws {
        #expect(try bound("nickname == $0", on: "Person", [Optional<String>.none as Any]) == "nickname == null")
        #expect(try bound("nickname == $0", on: "Person", [NSNull()]) == "nickname == null")
        #expect(try bound("nickname == %@", on: "Person", [Optional<Optional<Int>>.some(nil) as Any]) == "nickname == null")
    }

    static let rejected: [(query: String, className: String, fragments: [String])] = [
        ("dogs == nil", "Person", ["'dogs' is a collection of objects, which cannot be compared with nil", "offset 5"]),
        ("dogs.owner != nil", "Person", ["collection of objects"]),
        ("born BETWEEN {nil, T1:0}", "Person", ["BETWEEN cannot compare with nil"]),
        ("NULL CONTAINS tags", "Person", ["needs a single value on the right side"]),
        ("NULL LIKE age", "Person", ["needs a string or binary data on its right side"]),
    ]

    @Test(arguments: rejected)
    func rejectsNilWithCollectionsOfObjects(_ query: String, _ className: String, _ fragments: [String]) {
        expectInvalid(query, on: className, contains: fragments)
    }
}
