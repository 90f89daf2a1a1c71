import AtollQuery
import AtollStorage
import Foundation

/// The schema the binder tests run against: Realm's documentation models (Project, Item, Task)
/// plus Person/Dog for links and an AllTypes class for every value type.
enum TestSchema {
    static let schema = QuerySchema([person, dog, allTypes, project, item, task])

    private static func properties(_ list: [(String, QueryValueType, optional: Bool, list: Bool, target: String?)]) -> [QueryProperty] {
        list.enumerated().map { index, entry in
            QueryProperty(name: entry.0, type: entry.1, isOptional: entry.optional, isList: entry.list, objectClassName: entry.target, columnIndex: index)
        }
    }

    static let person = QueryClassSchema(
        name: "Person",
        properties: properties([
            ("name", .string, false, false, nil),
            ("age", .int, false, false, nil),
            ("nickname", .string, true, false, nil),
            ("dogs", .object, false, true, "Dog"),
            ("tags", .string, false, true, nil),
            ("scores", .int, false, true, nil),
            ("ratings", .double, true, true, nil),
            ("born", .date, true, false, nil),
            ("bestFriend", .object, true, false, "Person"),
            ("isActive", .bool, false, false, nil),
            ("weight", .double, false, false, nil),
        ]) + [QueryProperty(name: "id", type: .objectId, isIndexed: true, columnIndex: 11)],
        primaryKey: "id"
    )

    static let dog = QueryClassSchema(
        name: "Dog",
        properties: properties([
            ("name", .string, false, false, nil),
            ("age", .int, false, false, nil),
            ("owner", .object, true, false, "Person"),
            ("weight", .double, true, false, nil),
            ("birthday", .date, false, false, nil),
            ("chip", .uuid, true, false, nil),
            ("nicknames", .string, true, true, nil),
            ("limit", .int, false, false, nil),
            ("in", .string, false, false, nil),
        ]) + [QueryProperty.linkingObjects(name: "owners", originClassName: "Person", originPropertyName: "dogs", columnIndex: 9)]
    )

    static let allTypes: QueryClassSchema = {
        var list: [(String, QueryValueType, optional: Bool, list: Bool, target: String?)] = []
        for type in QueryValueType.allCases where type != .object {
            list.append(("\(type.rawValue)Col", type, false, false, nil))
            list.append(("optional\(type.rawValue.prefix(1).uppercased() + type.rawValue.dropFirst())Col", type, true, false, nil))
            list.append(("\(type.rawValue)List", type, false, true, nil))
        }
        list.append(("objectCol", .object, true, false, "Dog"))
        list.append(("objectList", .object, false, true, "Dog"))
        return QueryClassSchema(name: "AllTypes", properties: properties(list))
    }()

    static let project = QueryClassSchema(
        name: "Project",
        properties: properties([
            ("name", .string, false, false, nil),
            ("tasks", .object, false, true, "Task"),
            ("items", .object, false, true, "Item"),
            ("quota", .int, true, false, nil),
        ]) + [QueryProperty(name: "id", type: .objectId, isIndexed: true, columnIndex: 4)],
        primaryKey: "id"
    )

    static let item = QueryClassSchema(
        name: "Item",
        properties: properties([
            ("name", .string, false, false, nil),
            ("isComplete", .bool, false, false, nil),
            ("assignee", .string, true, false, nil),
            ("priority", .int, false, false, nil),
            ("progressMinutes", .int, false, false, nil),
        ]) + [
            QueryProperty(name: "id", type: .objectId, isIndexed: true, columnIndex: 5),
            QueryProperty.linkingObjects(name: "projects", originClassName: "Project", originPropertyName: "items", columnIndex: 6),
        ],
        primaryKey: "id"
    )

    static let task = QueryClassSchema(
        name: "Task",
        properties: properties([
            ("name", .string, false, false, nil),
            ("isComplete", .bool, false, false, nil),
            ("assignee", .string, true, false, nil),
            ("priority", .int, false, false, nil),
            ("progressMinutes", .int, false, false, nil),
            ("labels", .string, false, true, nil),
            ("ratings", .int, false, true, nil),
        ]) + [QueryProperty.linkingObjects(name: "projects", originClassName: "Project", originPropertyName: "tasks", columnIndex: 7)]
    )
}

/// A stand-in for a managed object passed as an argument.
struct TestObject: QueryObjectReference {
    var queryClassName: String
    var queryObjectKey: UInt64
}
