import AtollQuery
import Testing

/// BEGINSWITH, ENDSWITH, CONTAINS, LIKE, ==, != with [c], [d], [cd], on strings and data.
@Suite struct BinderStringOperatorTests {
    static let cases: [(query: String, className: String, expected: String)] = [
        ("name BEGINSWITH 'Al'", "Person", "name BEGINSWITH string(\"Al\")"),
        ("name ENDSWITH[c] 'I'", "Person", "name ENDSWITH[c] string(\"I\")"),
        ("name CONTAINS[d] 'é'", "Person", "name CONTAINS[d] string(\"é\")"),
        ("name CONTAINS[cd] 'e'", "Person", "name CONTAINS[cd] string(\"e\")"),
        ("name LIKE 'd?g*'", "Person", "name LIKE string(\"d?g*\")"),
        ("name LIKE[c] '*É*'", "Person", "name LIKE[c] string(\"*É*\")"),
        ("name ==[c] 'ali'", "Person", "name ==[c] string(\"ali\")"),
        ("name !=[cd] 'ali'", "Person", "name !=[cd] string(\"ali\")"),
        ("name IN[c] {'a', 'b'}", "Person", "name IN[c] [string(\"a\"), string(\"b\")]"),
        ("nickname BEGINSWITH name", "Person", "nickname BEGINSWITH name"),
        // NSPredicate: a string IN a string property is a substring test.
        ("'ie' IN name", "Person", "name CONTAINS string(\"ie\")"),
        ("'ie' IN[c] name", "Person", "name CONTAINS[c] string(\"ie\")"),
        // Through lists: ANY is implied.
        ("tags CONTAINS 'x'", "Person", "ANY tags CONTAINS string(\"x\")"),
        ("ALL tags BEGINSWITH[c] 'a'", "Person", "ALL tags BEGINSWITH[c] string(\"a\")"),
        ("NONE dogs.name LIKE '*x*'", "Person", "NONE dogs.name LIKE string(\"*x*\")"),
        // Binary data.
        ("dataCol BEGINSWITH 'GIF'", "AllTypes", "dataCol BEGINSWITH data(71,73,70)"),
        ("dataCol CONTAINS[c] B64\"AAE=\"", "AllTypes", "dataCol CONTAINS[c] data(0,1)"),
        ("dataCol LIKE '*?'", "AllTypes", "dataCol LIKE data(42,63)"),
        ("ANY dataList ENDSWITH 'z'", "AllTypes", "ANY dataList ENDSWITH data(122)"),
        ("optionalDataCol == nil", "AllTypes", "optionalDataCol == null"),
        // Realm's docs.
        ("name BEGINSWITH[c] $0", "Project", "name BEGINSWITH[c] string(\"e\")"),
    ]

    @Test(arguments: cases)
    func bindsToTheExpectedTree(_ query: String, _ className: String, _ expected: String) throws {
        #expect(try bound(query, on: className, ["e"]) == expected)
    }

    static let rejected: [(query: String, fragments: [String])] = [
        ("age BEGINSWITH 'a'", ["BEGINSWITH needs a string or binary data on its left side", "int property 'age'", "offset 4"]),
        ("isActive LIKE 'a'", ["LIKE needs a string or binary data"]),
        ("name CONTAINS 3", ["cannot compare string property 'name' with int 3", "offset 14"]),
        ("name BEGINSWITH age", ["cannot compare string property 'name' with int property 'age'"]),
        ("'abc' BEGINSWITH name", ["BEGINSWITH needs a key path on its left side", "offset 6"]),
        ("age ==[c] 3", ["the modifier [c] applies only to strings and binary data", "int property 'age'", "offset 4"]),
        ("born IN[d] {T0:0}", ["the modifier [d] applies only to strings"]),
        ("name == 3", ["cannot compare string property 'name' with int 3"]),
        ("age IN name", ["cannot compare string property 'name' with int property 'age'"]),
        ("name LIKE[d] 'a'", ["LIKE does not take [d]", "offset 5"]),
        ("name LIKE[cd] 'a'", ["LIKE does not take [d]"]),
        ("'abc' LIKE[d] name", ["LIKE needs a key path on its left side"]),
    ]

    @Test(arguments: rejected)
    func rejectsOperatorsThatDoNotApply(_ query: String, _ fragments: [String]) {
        expectInvalid(query, contains: fragments)
    }
}
