import AtollQuery
import Testing

/// @count/@size, @min/@max/@sum/@avg, and SUBQUERY(…).@count.
@Suite struct BinderAggregateTests {
    static let cases: [(query: String, className: String, expected: String)] = [
        // Realm's docs (Project / Task, Item).
        ("tasks.@avg.priority > 5", "Project", "@avg(tasks.priority) > double(5.0)"),
        ("tasks.@max.priority < 5", "Project", "@max(tasks.priority) < int(5)"),
        ("tasks.@min.priority > 5", "Project", "@min(tasks.priority) > int(5)"),
        ("tasks.@count > 5", "Project", "tasks.@count > int(5)"),
        ("tasks.@sum.progressMinutes > 100", "Project", "@sum(tasks.progressMinutes) > int(100)"),
        ("items.@count > $0", "Project", "items.@count > int(5)"),
        ("projects.@count > 1", "Item", "projects.@count > int(1)"),
        ("@links.Project.items.@count == 0", "Item", "@links.Project.items.@count == int(0)"),
        ("@links.Project.items.items.@avg.progressMinutes > 10", "Item", "@avg(@links.Project.items.items.progressMinutes) > double(10.0)"),
        // @size is @count; aggregates of lists of values; either side constant.
        ("tasks.@size == 0", "Project", "tasks.@count == int(0)"),
        ("scores.@count >= 1", "Person", "scores.@count >= int(1)"),
        ("scores.@max > 90", "Person", "@max(scores) > int(90)"),
        ("scores.@sum == 10", "Person", "@sum(scores) == int(10)"),
        ("ratings.@avg > 2.5", "Person", "@avg(ratings) > double(2.5)"),
        ("ratings.@sum == 0", "Person", "@sum(ratings) == double(0.0)"),
        ("floatList.@sum > 1", "AllTypes", "@sum(floatList) > double(1.0)"),
        ("floatList.@min > 1", "AllTypes", "@min(floatList) > float(1.0)"),
        ("dateList.@max < T5:0", "AllTypes", "@max(dateList) < ts(5,0)"),
        ("5 < tasks.@count", "Project", "tasks.@count > int(5)"),
        ("tasks.@count == 2.5", "Project", "tasks.@count == double(2.5)"),
        ("dogs.@avg.weight > age", "Person", "@avg(dogs.weight) > age"),
        ("age == dogs.@count", "Person", "age == dogs.@count"),
        ("dogs.owner.dogs.@count > 1", "Person", "dogs.owner.dogs.@count > int(1)"),
        // SUBQUERY, from Realm's docs: key paths inside refer to the element.
        ("SUBQUERY(tasks, $task, $task.isComplete == false AND $task.assignee == 'Alex').@count > 0", "Project",
         "SUBQUERY(tasks, (isComplete == bool(false) AND assignee == string(\"Alex\"))).@count > int(0)"),
        ("SUBQUERY(items, $item, $item.isComplete == true).@count >= quota", "Project",
         "SUBQUERY(items, isComplete == bool(true)).@count >= quota"),
        ("SUBQUERY(tasks, $t, priority > 3 AND $t.priority < 9).@size == 1", "Project",
         "SUBQUERY(tasks, (priority > int(3) AND priority < int(9))).@count == int(1)"),
        ("SUBQUERY(dogs, $d, ANY $d.owners.age > 3).@count > 0", "Person", "SUBQUERY(dogs, ANY owners.age > int(3)).@count > int(0)"),
        ("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $o, $o.age > 3).@count > 1).@count > 0", "Person",
         "SUBQUERY(dogs, SUBQUERY(owners, age > int(3)).@count > int(1)).@count > int(0)"),
        ("SUBQUERY(@links.Project.items, $p, $p.quota > 1).@count > 0", "Item", "SUBQUERY(@links.Project.items, quota > int(1)).@count > int(0)"),
        ("0 < SUBQUERY(dogs, $d, $d.age > 1).@count", "Person", "SUBQUERY(dogs, age > int(1)).@count > int(0)"),
    ]

    @Test(arguments: cases)
    func bindsToTheExpectedTree(_ query: String, _ className: String, _ expected: String) throws {
        #expect(try bound(query, on: className, [5]) == expected)
    }

    @Test func theSubqueryVariableAloneIsTheElement() throws {
        let rex = TestObject(queryClassName: "Dog", queryObjectKey: 1)
        #expect(try bound("SUBQUERY(dogs, $d, $d == $0).@count > 0", on: "Person", [rex]) == "SUBQUERY(dogs, self == obj(Dog,1)).@count > int(0)")
    }

    @Test func aggregatesRecordTheirResultType() throws {
        let query = try BoundQuery("tasks.@avg.priority > 5", on: "Project", schema: TestSchema.schema)
        guard case .comparison(let comparison) = query.predicate, case .aggregate(let aggregate) = comparison.left else {
            Issue.record("unexpected shape")
            return
        }
        #expect(aggregate.function == .avg && aggregate.resultType == .double)
        #expect(aggregate.values.isToMany && aggregate.values.valueType == .int)
        #expect(comparison.valueType == .double)
    }

    static let rejected: [(query: String, className: String, fragments: [String])] = [
        ("age.@count > 1", "Person", ["@count can only follow a list or linking objects", "'age' is an int property", "offset 4"]),
        ("owner.@count > 1", "Dog", ["'owner' is a link to Person"]),
        ("age.@avg > 1", "Person", ["@avg can only follow a list", "an int property"]),
        ("tags.@sum > 1", "Person", ["@sum cannot be applied to the string values of 'tags'", "needs numbers"]),
        ("dateList.@avg > T0:0", "AllTypes", ["@avg cannot be applied to the date values"]),
        ("dogs.@avg > 1", "Person", ["@avg on a list of objects must be followed by one property", "items.@avg.priority"]),
        ("dogs.@avg.name > 1", "Person", ["@avg cannot be applied to the string values of 'dogs.name'"]),
        ("dogs.@max.owner > 1", "Person", ["@max needs a numeric property, but 'owner' is a link to Person"]),
        ("dogs.@max.nmae > 1", "Person", ["unknown property 'nmae' on Dog", "did you mean 'name'?"]),
        ("dogs.@count.age > 1", "Person", ["@count must be at the end of a key path"]),
        ("scores.@max.x > 1", "Person", ["@max on a list of values must be at the end"]),
        ("tasks.@count == 'x'", "Project", ["cannot compare 'tasks.@count' with string 'x'"]),
        ("tasks.@avg.priority == name", "Project", ["cannot compare 'tasks.@avg.priority' with string property 'name'"]),
        ("tasks.@count BEGINSWITH 'a'", "Project", ["BEGINSWITH needs a string"]),
        ("SUBQUERY(tags, $t, $t == 'a').@count > 0", "Person", ["SUBQUERY needs a list of objects", "'tags' is a list of string values"]),
        ("SUBQUERY(bestFriend, $f, $f.age > 1).@count > 0", "Person", ["SUBQUERY needs a list of objects", "is not a list"]),
        ("SUBQUERY(dogs.@count, $d, $d.age > 1).@count > 0", "Person", ["not an aggregate"]),
        ("SUBQUERY(dogs, $d, $e.age > 1).@count > 0", "Person", ["unknown variable '$e'", "this SUBQUERY's variable is '$d'"]),
        ("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $d, $d.age > 1).@count > 0).@count > 0", "Person", ["'$d' is already used by an enclosing SUBQUERY"]),
        ("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $o, $d.age > 1).@count > 0).@count > 0", "Person", ["'$d' of an enclosing SUBQUERY cannot be used"]),
        ("SUBQUERY(dogs, $d, $d.nmae == 'x').@count > 0", "Person", ["unknown property 'nmae' on Dog"]),
        ("SUBQUERY(dogs, $d, $d.age > 1).@count == 'x'", "Person", ["cannot compare SUBQUERY(…).@count with string 'x'"]),
        ("ANY SUBQUERY(dogs, $d, $d.age > 1).@count > 0", "Person", ["ANY needs a key path through a list"]),
        ("ANY tasks.@count > 0", "Project", ["ANY needs a key path through a list"]),
    ]

    @Test(arguments: rejected)
    func rejectsAggregatesThatDoNotApply(_ query: String, _ className: String, _ fragments: [String]) {
        expectInvalid(query, on: className, contains: fragments)
    }
}
