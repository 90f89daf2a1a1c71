import AtollQuery
import Testing

/// SORT, DISTINCT and LIMIT, and composing chained filters.
@Suite struct BinderClauseTests {
    private func clauses(_ query: String, on className: String = "Dog") throws -> [String] {
        try BoundQuery(query, on: className, schema: TestSchema.schema).clauses.map(Rendering.render)
    }

    @Test func bindsClausesInTheOrderWritten() throws {
        #expect(try clauses("TRUEPREDICATE SORT(age DESC, name ASC) DISTINCT(name) LIMIT(5)")
            == ["SORT(age DESC, name ASC)", "DISTINCT(name)", "LIMIT(5)"])
        #expect(try clauses("age > 1 LIMIT(2) SORT(owner.name) DISTINCT(owner.age, name)")
            == ["LIMIT(2)", "SORT(owner.name ASC)", "DISTINCT(owner.age, name)"])
        #expect(try clauses("age > 1 sort(birthday descending) limit(0)") == ["SORT(birthday DESC)", "LIMIT(0)"])
    }

    @Test func realmDocumentationExample() throws {
        let query = try BoundQuery("assignee == 'Ali' SORT(priority DESC) DISTINCT(name) LIMIT(5)", on: "Item", schema: TestSchema.schema)
        #expect(Rendering.render(query.predicate) == "assignee == string(\"Ali\")")
        #expect(query.clauses.map(Rendering.render) == ["SORT(priority DESC)", "DISTINCT(name)", "LIMIT(5)"])
    }

    static let rejected: [(query: String, fragments: [String])] = [
        ("TRUEPREDICATE SORT(nmae ASC)", ["unknown property 'nmae' on Dog", "did you mean 'name'?"]),
        ("TRUEPREDICATE SORT(owners.name ASC)", ["SORT cannot use 'owners.name' because it passes through a list or linking objects"]),
        ("TRUEPREDICATE SORT(nicknames)", ["passes through a list"]),
        ("TRUEPREDICATE SORT(owner)", ["SORT cannot use 'owner' because it is a link", "'owner.name'"]),
        ("TRUEPREDICATE DISTINCT(owners)", ["DISTINCT cannot use 'owners'"]),
        ("TRUEPREDICATE SORT(owners.@count)", ["SORT needs a property, not an aggregate"]),
    ]

    @Test(arguments: rejected)
    func rejectsClausesOnCollectionsAndLinks(_ query: String, _ fragments: [String]) {
        expectInvalid(query, on: "Dog", contains: fragments)
    }

    @Test func chainedFiltersComposeIntoOneQuery() throws {
        let first = try BoundQuery("age > 1 SORT(name)", on: "Dog", schema: TestSchema.schema)
        let second = try BoundQuery("name BEGINSWITH 'R' LIMIT(3)", on: "Dog", schema: TestSchema.schema)
        let combined = first.combined(with: second)
        #expect(Rendering.render(combined.predicate) == "(age > int(1) AND name BEGINSWITH string(\"R\"))")
        #expect(combined.clauses.map(Rendering.render) == ["SORT(name ASC)", "LIMIT(3)"])
        let everything = try BoundQuery("TRUEPREDICATE", on: "Dog", schema: TestSchema.schema)
        #expect(everything.combined(with: first).predicate == first.predicate)
        #expect(Rendering.render(combined.combined(with: first).predicate) == "(age > int(1) AND name BEGINSWITH string(\"R\") AND age > int(1))")
    }
}
