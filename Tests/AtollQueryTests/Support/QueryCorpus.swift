import AtollStorage
import Foundation

/// Valid queries: the ones from Realm's documentation (the Realm Query Language reference and
/// the Swift SDK's "Filter Data" page, adapted only where they name properties our test schema
/// lacks), plus our own, covering every operator family. The fuzz test mutates them.
enum QueryCorpus {
    struct Entry: Sendable {
        var query: String
        var className: String
        var arguments: [any Sendable]

        init(_ query: String, on className: String, _ arguments: [any Sendable] = []) {
            self.query = query
            self.className = className
            self.arguments = arguments
        }
    }

    static let oid = try! ObjectId(string: "507f1f77bcf86cd799439011")

    static let realmQueryLanguageReference: [Entry] = [
        Entry("progressMinutes > 1 AND assignee == $0", on: "Item", ["Ali"]),
        Entry("progressMinutes > $0 AND assignee == $1", on: "Item", [1, "Alex"]),
        Entry("name == 'George'", on: "Item"),
        Entry("name == $0", on: "Item", ["George"]),
        Entry("isComplete == false", on: "Item"),
        Entry("priority > 5.50", on: "Item"),
        Entry("id == oid(507f1f77bcf86cd799439011)", on: "Item"),
        Entry("id == oid(6001c033600510df3bbfd864)", on: "Item"),
        Entry("id == $0", on: "Item", [oid]),
        Entry("chip == uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)", on: "Dog"),
        Entry("ANY items.name == {$0, $1}", on: "Project", ["milk", "bread"]),
        Entry("ANY items.name == {'milk', 'bread'}", on: "Project"),
        Entry("assignee == nil", on: "Item"),
        Entry("assignee == $0", on: "Item", [String?.none as any Sendable]),
        Entry("priority > $0", on: "Item", [5]),
        Entry("progressMinutes > $0", on: "Item", [120]),
        Entry("progressMinutes BETWEEN { $0 , $1 }", on: "Item", [30, 60]),
        Entry("progressMinutes IN { $0, $1, $2, $3, $4, $5 }", on: "Item", [10, 20, 30, 40, 50, 60]),
        Entry("assignee == $0 AND isComplete == $1", on: "Item", ["Ali", true]),
        Entry("name BEGINSWITH[c] $0", on: "Project", ["e"]),
        Entry("name CONTAINS $0", on: "Project", ["ie"]),
        Entry("born < $0", on: "Person", [Date(timeIntervalSince1970: 1_613_842_215)]),
        Entry("born < 2021-02-20@17:30:15:0", on: "Person"),
        Entry("born > T1613842215:0", on: "Person"),
        Entry("items.@avg.priority > $0", on: "Project", [5]),
        Entry("items.@max.priority < $0", on: "Project", [5]),
        Entry("items.@min.priority > $0", on: "Project", [5]),
        Entry("items.@count > $0", on: "Project", [5]),
        Entry("items.@sum.progressMinutes > $0", on: "Project", [100]),
        Entry("NONE items.isComplete == $0", on: "Project", [true]),
        Entry("ANY items.priority == $0", on: "Project", [10]),
        Entry("ALL items.isComplete == $0", on: "Project", [true]),
        Entry("ANY items.assignee IN { $0 , $1 }", on: "Project", ["Alex", "Ali"]),
        Entry("NONE items.assignee IN { $0 , $1 }", on: "Project", ["Alex", "Ali"]),
        Entry("oid(631a072f75120729dc9223d9) IN items.id", on: "Project"),
        Entry("priority IN {0, 1, 2}", on: "Item"),
        Entry("id IN $0", on: "Item", [[oid, oid]]),
        Entry("age == ANY {18, 21}", on: "Person"),
        Entry("age == {18, 21}", on: "Person"),
        Entry("age == NONE {18, 21}", on: "Person"),
        Entry("@links.Project.items.quota > 10", on: "Item"),
        Entry("projects.quota > 10", on: "Item"),
        Entry("ANY @links.Project.items.quota > 0", on: "Item"),
        Entry("ALL @links.Project.items.quota > 0", on: "Item"),
        Entry("projects.@count > 1", on: "Item"),
        Entry("@links.Project.items.@count == 0", on: "Item"),
        Entry("@links.Project.items.items.@avg.progressMinutes > 10", on: "Item"),
        Entry("SUBQUERY(items, $item, $item.isComplete == false AND $item.assignee == 'Alex').@count > 0", on: "Project"),
        Entry("SUBQUERY(items, $item, $item.isComplete == true).@count >= quota", on: "Project"),
        Entry("assignee == 'Ali' SORT(priority DESC) DISTINCT(name) LIMIT(5)", on: "Item"),
        Entry("'comedy' IN tags", on: "Person"),
        Entry("priority IN {1,2,3} AND name==\"Northeast\"", on: "Item"),
        Entry("priority == 1 AND (progressMinutes < 5 OR progressMinutes < 10)", on: "Item"),
        // Realm's docs write `{'comedy', 'horror', 'suspense'} IN genres`, which realm-core compares
        // position by position; Atoll asks for a quantifier (docs/QUERY_LANGUAGE.md).
        Entry("ANY {'comedy', 'horror', 'suspense'} IN tags", on: "Person"),
        Entry("ALL {'comedy', 'horror'} IN tags", on: "Person"),
    ]

    static let swiftFilterDataPage: [Entry] = [
        Entry("progressMinutes > 1 AND name == %@", on: "Task", ["Ali"]),
        Entry("progressMinutes > %@ AND name == %@", on: "Task", [1, "Ali"]),
        Entry("%K > %@ AND %K == %@", on: "Task", ["progressMinutes", 1, "name", "Ali"]),
        Entry("priority > 5", on: "Task"),
        Entry("progressMinutes > 120", on: "Task"),
        Entry("assignee == nil", on: "Task"),
        Entry("assignee IN {'Ali', 'Jamie'}", on: "Task"),
        Entry("progressMinutes BETWEEN {30, 60}", on: "Task"),
        Entry("progressMinutes between {1, 15}", on: "Task"),
        Entry("priority > %@", on: "Task", [5]),
        Entry("assignee == 'Ali' AND isComplete == true", on: "Task"),
        Entry("name BEGINSWITH[c] 'e'", on: "Project"),
        Entry("name CONTAINS 'ie'", on: "Project"),
        Entry("name CONTAINS[cd] 'e'", on: "Project"),
        Entry("name CONTAINS[c] 'f'", on: "Project"),
        Entry("name CONTAINS[d] 'e'", on: "Project"),
        Entry("tasks.@avg.priority > 5", on: "Project"),
        Entry("tasks.@max.priority < 5", on: "Project"),
        Entry("tasks.@min.priority > 5", on: "Project"),
        Entry("tasks.@count > 5", on: "Project"),
        Entry("tasks.@sum.progressMinutes > 100", on: "Project"),
        Entry("NONE tasks.isComplete == true", on: "Project"),
        Entry("ANY tasks.priority == 10", on: "Project"),
        Entry("SUBQUERY(tasks, $task, $task.isComplete == false AND $task.assignee == %@).@count > 0", on: "Project", ["Alex"]),
        Entry("ANY labels == 'quick win'", on: "Task"),
        Entry("ratings.@avg > 3", on: "Task"),
        Entry("labels.@count == 0", on: "Task"),
        Entry("ANY tasks.labels == 'urgent'", on: "Project"),
        // From apps: NSPredicate format strings.
        Entry("owner = nil AND weight = nil", on: "Dog"),
        Entry("isComplete == %@ AND priority == %@", on: "Task", [false, 3]),
        Entry("name contains[c] %@", on: "Task", ["x"]),
        Entry("%K == %ld AND %K == NO", on: "Task", ["priority", 2, "isComplete"]),
    ]

    static let ours: [Entry] = [
        Entry("name LIKE 'd?g*'", on: "Dog"),
        Entry("name LIKE[c] '*ROVER*'", on: "Dog"),
        Entry("owner.name BEGINSWITH 'A' AND age >= 2 OR weight < 3.5", on: "Dog"),
        Entry("NOT (age > 5)", on: "Dog"),
        Entry("!(name == 'x') && age != 1 || age <> 2", on: "Dog"),
        Entry("birthday > 2020-01-01@00:00:00", on: "Dog"),
        Entry("birthday BETWEEN {T0:0, T1700000000:0}", on: "Dog"),
        Entry("chip != nil", on: "Dog"),
        Entry("owners.@count > 0", on: "Dog"),
        Entry("ALL owners.age >= 18", on: "Dog"),
        Entry("NONE nicknames CONTAINS[cd] 'bob'", on: "Dog"),
        Entry("#limit > 1 AND #in == 'x'", on: "Dog"),
        Entry("TRUEPREDICATE SORT(age DESC, name ASC) LIMIT(10)", on: "Dog"),
        Entry("FALSEPREDICATE", on: "Dog"),
        Entry("owner == $0", on: "Dog", [TestObject(queryClassName: "Person", queryObjectKey: 4)]),
        Entry("dataCol BEGINSWITH B64\"R0lG\"", on: "AllTypes"),
        Entry("uuidCol IN {uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)}", on: "AllTypes"),
        Entry("objectIdCol < oid(507f1f77bcf86cd799439011)", on: "AllTypes"),
        Entry("floatCol > 1.5 AND doubleCol < -2e3", on: "AllTypes"),
        Entry("optionalIntCol == nil OR intCol == 0x10", on: "AllTypes"),
        Entry("intList.@sum > 10 AND doubleList.@avg < 2.5", on: "AllTypes"),
        Entry("dateList.@min < T0:0", on: "AllTypes"),
        Entry("stringList CONTAINS 'x'", on: "AllTypes"),
        Entry("objectList.name == 'Rex'", on: "AllTypes"),
        Entry("objectCol.owner.name ==[cd] 'josé'", on: "AllTypes"),
        Entry("SUBQUERY(objectList, $d, $d.age > 2 AND $d.owner.age > 30).@count >= 1", on: "AllTypes"),
        Entry("boolCol == YES AND optionalBoolCol != nil", on: "AllTypes"),
        Entry("dogs.@avg.weight > 10", on: "Person"),
        Entry("bestFriend.bestFriend.name == name", on: "Person"),
        Entry("name ENDSWITH[d] 'é' AND nickname BEGINSWITH 'Ö'", on: "Person"),
        Entry("scores.@max >= 90 AND ratings.@min == nil", on: "Person"),
        Entry("age IN %@", on: "Person", [[1, 2, 3]]),
        Entry("weight BETWEEN %@", on: "Person", [[1.5, 2.5]]),
        Entry("'ie' IN name", on: "Person"),
        Entry("3 < age AND 'Ali' == name", on: "Person"),
        Entry("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $o, $o.age > 3).@count > 1).@count > 0", on: "Person"),
        Entry("age > 1 LIMIT(2) SORT(name) DISTINCT(age, name)", on: "Person"),
        Entry("name == '日本語' OR name == 'Ελληνικά' OR name ==[c] 'STRASSE'", on: "Person"),
        Entry("name == 'it\\'s \\u00e9 \\n'", on: "Person"),
    ]

    static let all: [Entry] = realmQueryLanguageReference + swiftFilterDataPage + ours
}
