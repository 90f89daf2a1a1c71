import AtollQuery
import AtollStorage
import Testing

/// Key paths through links, lists and linking objects, with ANY, ALL and NONE.
@Suite struct BinderKeyPathTests {
    static let cases: [(query: String, className: String, expected: String)] = [
        ("owner.name == 'Ali'", "Dog", "owner.name == string(\"Ali\")"),
        ("owner.bestFriend.bestFriend.age > 3", "Dog", "owner.bestFriend.bestFriend.age > int(3)"),
        // A bare comparison through a list means ANY.
        ("dogs.age > 3", "Person", "ANY dogs.age > int(3)"),
        ("ANY dogs.age > 3", "Person", "ANY dogs.age > int(3)"),
        ("SOME dogs.age > 3", "Person", "ANY dogs.age > int(3)"),
        ("ALL dogs.age > 3", "Person", "ALL dogs.age > int(3)"),
        ("NONE dogs.age > 3", "Person", "NONE dogs.age > int(3)"),
        ("dogs.owner.dogs.name == 'x'", "Person", "ANY dogs.owner.dogs.name == string(\"x\")"),
        // Lists of primitives.
        ("scores > 90", "Person", "ANY scores > int(90)"),
        ("ALL ratings >= 2", "Person", "ALL ratings >= double(2.0)"),
        ("'comedy' IN tags", "Person", "ANY tags == string(\"comedy\")"),
        ("ANY tags IN {'a', 'b'}", "Person", "ANY tags IN [string(\"a\"), string(\"b\")]"),
        ("ANY {'a', 'b'} IN tags", "Person", "(ANY tags == string(\"a\") OR ANY tags == string(\"b\"))"),
        ("3 < scores", "Person", "ANY scores > int(3)"),
        ("age IN scores", "Person", "ANY scores == age"),
        // Linking objects, named or through @links.
        ("owners.name == 'Ali'", "Dog", "ANY owners.name == string(\"Ali\")"),
        ("projects.quota > 10", "Item", "ANY projects.quota > int(10)"),
        ("@links.Project.items.quota > 10", "Item", "ANY @links.Project.items.quota > int(10)"),
        ("ALL @links.Project.items.quota > 0", "Item", "ALL @links.Project.items.quota > int(0)"),
        ("@links.Dog.owner.name == 'Rex'", "Person", "ANY @links.Dog.owner.name == string(\"Rex\")"),
        // Escaped names and reserved words after a dot.
        ("#limit == 3", "Dog", "limit == int(3)"),
        ("ANY dogs.in == 'x'", "Person", "ANY dogs.in == string(\"x\")"),
        ("dogs.limit > 1", "Person", "ANY dogs.limit > int(1)"),
        // Realm's docs.
        ("oid(631a072f75120729dc9223d9) IN items.id", "Project", "ANY items.id == oid(631a072f75120729dc9223d9)"),
        ("NONE tasks.isComplete == true", "Project", "NONE tasks.isComplete == bool(true)"),
        ("ANY tasks.priority == 10", "Project", "ANY tasks.priority == int(10)"),
        ("ANY items.assignee IN {'Alex', 'Ali'}", "Project", "ANY items.assignee IN [string(\"Alex\"), string(\"Ali\")]"),
    ]

    @Test(arguments: cases)
    func bindsToTheExpectedTree(_ query: String, _ className: String, _ expected: String) throws {
        #expect(try bound(query, on: className) == expected)
    }

    @Test func stepsRecordTheClassAndPropertyOfEachHop() throws {
        let query = try BoundQuery("@links.Project.items.quota > 10", on: "Item", schema: TestSchema.schema)
        guard case .comparison(let comparison) = query.predicate, case .keyPath(let path) = comparison.left else {
            Issue.record("unexpected shape")
            return
        }
        #expect(path.steps.map(\.className) == ["Item", "Project"])
        let backlink = path.steps[0].property
        #expect(backlink.isLinkingObjects && backlink.isToMany)
        #expect(backlink.linkingObjectsOrigin == LinkingObjectsOrigin(className: "Project", propertyName: "items"))
        #expect(backlink.objectClassName == "Project")
        #expect(backlink.columnIndex == TestSchema.project.property(named: "items")?.columnIndex)
        #expect(path.isToMany && path.canBeNull && path.valueType == .int)
    }

    @Test func comparesLinksWithObjects() throws {
        let rex = TestObject(queryClassName: "Dog", queryObjectKey: 7)
        let ali = TestObject(queryClassName: "Person", queryObjectKey: 3)
        #expect(try bound("owner == $0", on: "Dog", [ali]) == "owner == obj(Person,3)")
        #expect(try bound("ANY dogs == $0", on: "Person", [rex]) == "ANY dogs == obj(Dog,7)")
        #expect(try bound("$0 IN dogs", on: "Person", [rex]) == "ANY dogs == obj(Dog,7)")
        #expect(try bound("owner IN $0", on: "Dog", [[ali, ali]]) == "owner IN [obj(Person,3), obj(Person,3)]")
        #expect(try bound("owners == %@", on: "Dog", [ali]) == "ANY owners == obj(Person,3)")
        expectInvalid("owner == $0", on: "Dog", [rex], contains: ["cannot compare Person property 'owner' with a Dog object", "holds Person objects"])
        expectInvalid("owner == 'Ali'", on: "Dog", contains: ["cannot compare Person property 'owner' with string 'Ali'"])
        expectInvalid("owner > $0", on: "Dog", [ali], contains: ["> cannot compare Person property 'owner'"])
    }

    static let rejected: [(query: String, className: String, fragments: [String])] = [
        ("nmae == 'x'", "Person", ["unknown property 'nmae' on Person at offset 0 (did you mean 'name'?)"]),
        ("owner.nmae == 'x'", "Dog", ["unknown property 'nmae' on Person at offset 6 (did you mean 'name'?)"]),
        ("colour == 'x'", "Dog", ["unknown property 'colour' on Dog at offset 0"]),
        ("name.length == 3", "Person", ["'name' is a string property, so it has no 'length'", "offset 5"]),
        ("age.value == 3", "Person", ["'age' is an int property, so it has no 'value'"]),
        ("ANY age > 1", "Person", ["ANY needs a key path through a list or linking objects", "offset 0"]),
        ("ALL owner.age > 1", "Dog", ["ALL needs a key path through a list"]),
        ("NONE 5 > age", "Person", ["NONE needs a list {…} or a key path through a collection"]),
        ("dogs.age == scores", "Person", ["cannot compare two collections"]),
        ("1 == 1", "Person", ["cannot compare two constants", "offset 2"]),
        ("'a' IN {'a'}", "Person", ["cannot compare two constants"]),
        ("@links.Nope.x > 1", "Person", ["@links names the class 'Nope', which is not in the schema", "offset 0"]),
        ("@links.Dog.nmae > 1", "Person", ["unknown property 'nmae' on Dog", "did you mean 'name'?"]),
        ("@links.Dog.name == 'x'", "Person", ["'Dog.name' does not link to Person"]),
        ("@links.Person.dogs.x > 1", "Person", ["'Person.dogs' does not link to Person"]),
        ("name.@links.Dog.owner > 1", "Person", ["'name' is a string property, so it has no @links"]),
        ("$x.name == 'a'", "Person", ["unknown variable '$x'", "only inside SUBQUERY", "offset 0"]),
        ("owner.$x == 1", "Dog", ["expected a property name after '.'"]),
        ("ANY tags == ALL {'a'}", "Person", ["ANY before a collection cannot be combined with ALL"]),
        ("age BETWEEN ANY {1, 2}", "Person", ["BETWEEN takes {low, high}, not a quantified list"]),
        ("age == ANY name", "Person", ["ANY on the right side needs a list {…} or a collection"]),
        ("age == ANY 5", "Person", ["ANY on the right side needs a list"]),
        ("tags == NONE {'a'}", "Person", ["ANY before a collection cannot be combined with NONE"]),
        ("ANY {1, 2, 3} > ALL {1, 2}", "Person", ["cannot compare two constants"]),
        ("{1, 2} < scores", "Person", ["needs ANY, ALL or NONE before the list"]),
        ("ANY {4, 8} == ANY {5, 9, 11}", "Person", ["cannot compare two constants"]),
    ]

    @Test(arguments: rejected)
    func rejectsInvalidKeyPaths(_ query: String, _ className: String, _ fragments: [String]) {
        expectInvalid(query, on: className, contains: fragments)
    }

    @Test func rejectsAnUnknownClass() {
        expectInvalid("age > 1", on: "Nope", contains: ["no class named 'Nope'"])
    }
}
