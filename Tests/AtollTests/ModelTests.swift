import Atoll
import Foundation
import Testing
import AtollTestSupport

// Models: property types, optionals, defaults, class-level overrides, unmanaged objects.

final class AllTypes: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 1)
    @Persisted var uuid = UUID()
    @Persisted var objectId = ObjectId()

    @Persisted var optBool: Bool?
    @Persisted var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optInt16: Int16?
    @Persisted var optInt32: Int32?
    @Persisted var optInt64: Int64?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optUUID: UUID?
    @Persisted var optObjectId: ObjectId?

    @Persisted var link: AllTypes?
    @Persisted var links: List<AllTypes>
    @Persisted var ints: List<Int>
    @Persisted var strings: List<String>
    @Persisted var optDoubles: List<Double?>
    @Persisted var dates: List<Date>
    @Persisted var uuids: List<UUID>
    @Persisted var objectIds: List<ObjectId>
    @Persisted var datas: List<Data>
    @Persisted(originProperty: "links") var linkedBy: LinkingObjects<AllTypes>
}

/// Realm's class-level overrides instead of `@Persisted` options.
final class Legacy: Object {
    @Persisted var code = ""
    @Persisted var title = ""
    @Persisted var tmpID = 0
    @Persisted var year = 0
    var plain = "not persisted"
    var computed: String { title.uppercased() }

    override class func primaryKey() -> String? { "code" }
    override class func indexedProperties() -> [String] { ["title"] }
    override class func ignoredProperties() -> [String] { ["tmpID"] }
}

/// Defaults come from the declaration.
final class Defaults: Object {
    @Persisted var name = "unnamed"
    @Persisted var count = 7
    @Persisted var ratio = 0.5
    @Persisted var tags: List<String>
    @Persisted var note: String?
    @Persisted var generated: ObjectId
    @Persisted var random: UUID
}

/// Properties inherited from a model base class are persisted too.
class Animal: Object {
    @Persisted var age = 0
}

final class Duck: Animal {
    @Persisted var name = ""
}

final class BadLink: Object {
    @Persisted var owner: Person
}

final class TwoKeys: Object {
    @Persisted(primaryKey: true) var a = 0
    @Persisted(primaryKey: true) var b = 0
}

@Suite struct ModelTests {
    @Test func everyPropertyTypeRoundTripsThroughAFile() throws {
        let dir = TemporaryDirectory()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: dir.file("types.atoll")), objectTypes: [AllTypes.self])
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        let oid = ObjectId()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let o = AllTypes()
                o.id = 1
                o.bool = true
                o.int = Int.max
                o.int8 = Int8.min
                o.int16 = Int16.max
                o.int32 = Int32.min
                o.int64 = Int64.max
                o.float = 1.5
                o.double = -2.25
                o.string = "héllo ✓"
                o.data = Data([0, 1, 2, 255])
                o.date = date
                o.uuid = uuid
                o.objectId = oid
                o.optBool = false
                o.optInt = -1
                o.optInt8 = 8
                o.optInt16 = 16
                o.optInt32 = 32
                o.optInt64 = 64
                o.optFloat = 0.5
                o.optDouble = 0.25
                o.optString = ""
                o.optData = Data()
                o.optDate = date
                o.optUUID = uuid
                o.optObjectId = oid
                o.link = o
                o.links.append(objectsIn: [o, o])
                o.ints.append(objectsIn: [3, 1, 2])
                o.strings.append(objectsIn: ["a", "b"])
                o.optDoubles.append(objectsIn: [1.0, nil, 3.0])
                o.dates.append(date)
                o.uuids.append(uuid)
                o.objectIds.append(oid)
                o.datas.append(Data([9]))
                realm.add(o)
                realm.add(AllTypes(value: ["id": 2]))
            }
        }
        let realm = try Realm(configuration: config)
        let o = try #require(realm.object(ofType: AllTypes.self, forPrimaryKey: 1))
        #expect(o.bool == true)
        #expect(o.int == Int.max)
        #expect(o.int8 == Int8.min)
        #expect(o.int16 == Int16.max)
        #expect(o.int32 == Int32.min)
        #expect(o.int64 == Int64.max)
        #expect(o.float == 1.5)
        #expect(o.double == -2.25)
        #expect(o.string == "héllo ✓")
        #expect(o.data == Data([0, 1, 2, 255]))
        #expect(o.date == date)
        #expect(o.uuid == uuid)
        #expect(o.objectId == oid)
        #expect(o.optBool == false)
        #expect(o.optInt == -1)
        #expect(o.optInt8 == 8)
        #expect(o.optInt16 == 16)
        #expect(o.optInt32 == 32)
        #expect(o.optInt64 == 64)
        #expect(o.optFloat == 0.5)
        #expect(o.optDouble == 0.25)
        #expect(o.optString == "")
        #expect(o.optData == Data())
        #expect(o.optDate == date)
        #expect(o.optUUID == uuid)
        #expect(o.optObjectId == oid)
        #expect(o.link?.id == 1)
        #expect(o.links.map(\.id) == [1, 1])
        #expect(Array(o.ints) == [3, 1, 2])
        #expect(Array(o.strings) == ["a", "b"])
        #expect(Array(o.optDoubles) == [1.0, nil, 3.0])
        #expect(Array(o.dates) == [date])
        #expect(Array(o.uuids) == [uuid])
        #expect(Array(o.objectIds) == [oid])
        #expect(Array(o.datas) == [Data([9])])
        #expect(o.linkedBy.count == 2, "the object's list holds it twice")

        let empty = try #require(realm.object(ofType: AllTypes.self, forPrimaryKey: 2))
        #expect(empty.optBool == nil && empty.optInt == nil && empty.optInt8 == nil && empty.optInt16 == nil)
        #expect(empty.optInt32 == nil && empty.optInt64 == nil && empty.optFloat == nil && empty.optDouble == nil)
        #expect(empty.optString == nil && empty.optData == nil && empty.optDate == nil && empty.optUUID == nil)
        #expect(empty.optObjectId == nil && empty.link == nil)
        #expect(empty.links.isEmpty && empty.ints.isEmpty && empty.linkedBy.isEmpty)
        #expect(empty.date == Date(timeIntervalSince1970: 1), "an unset property keeps its declared default")
    }

    @Test func optionalPropertiesCanBeSetBackToNil() throws {
        let realm = try Realm(configuration: freshConfiguration([AllTypes.self]))
        let o = AllTypes()
        o.optInt = 5
        o.optString = "x"
        try realm.write { realm.add(o) }
        try realm.write {
            o.optInt = nil
            o.optString = nil
        }
        #expect(o.optInt == nil)
        #expect(o.optString == nil)
        #expect(realm.objects(AllTypes.self).filter("optInt == nil AND optString == nil").count == 1)
    }

    @Test func integerPropertiesRejectValuesThatDoNotFit() throws {
        let realm = try Realm(configuration: freshConfiguration([AllTypes.self]))
        do {
            try realm.write { realm.create(AllTypes.self, value: ["id": 1, "int8": 300]) }
            Issue.record("300 does not fit an Int8")
        } catch let e as AtollError {
            #expect(e.kind == .typeMismatch)
            #expect(e.message.contains("int8"))
        }
        #expect(realm.objects(AllTypes.self).isEmpty)
    }

    @Test func onlyPersistedPropertiesAreInTheSchema() {
        let schema = Book().objectSchema
        #expect(schema.properties.map(\.name) == ["title", "price", "author"])
        #expect(schema["computedTitle"] == nil)
        #expect(schema["notPersisted"] == nil)
    }

    @Test func classLevelOverridesAreHonoured() throws {
        let schema = Legacy().objectSchema
        #expect(schema.primaryKeyProperty?.name == "code")
        #expect(schema["title"]?.isIndexed == true)
        #expect(schema["year"]?.isIndexed == false)
        // Ignored properties are not in the schema, as in RealmSwift.
        #expect(schema["tmpID"] == nil)
        #expect(schema["plain"] == nil && schema["computed"] == nil)

        let realm = try Realm(configuration: freshConfiguration([Legacy.self]))
        let a = Legacy()
        a.code = "A"
        a.title = "First"
        a.tmpID = 42
        try realm.write { realm.add(a) }
        #expect(a.tmpID == 42, "an ignored property keeps its in-memory value on the instance")
        let again = try #require(realm.object(ofType: Legacy.self, forPrimaryKey: "A"))
        #expect(again.title == "First")
        #expect(again.tmpID == 0, "ignored properties are not stored")
        #expect(throws: AtollError.self) { try realm.write { realm.create(Legacy.self, value: ["code": "A"]) } }
        #expect(throws: AtollError.self) { _ = try realm.objects(Legacy.self).filter(throwing: "tmpID == 42") }
    }

    @Test func defaultValuesComeFromTheDeclaration() throws {
        let unmanaged = Defaults()
        #expect(unmanaged.name == "unnamed")
        #expect(unmanaged.count == 7)
        #expect(unmanaged.note == nil)
        #expect(Defaults().generated != Defaults().generated, "an ObjectId property defaults to a new id, as in Realm")
        #expect(Defaults().random != Defaults().random)

        let realm = try Realm(configuration: freshConfiguration([Defaults.self]))
        try realm.write {
            realm.create(Defaults.self, value: ["count": 1])
            realm.create(Defaults.self)
        }
        let all = realm.objects(Defaults.self).sorted(byKeyPath: "count")
        #expect(all.map(\.name) == ["unnamed", "unnamed"])
        #expect(all.map(\.count) == [1, 7])
        #expect(all.map(\.ratio) == [0.5, 0.5])
        #expect(all[0].generated != all[1].generated)
    }

    @Test func nilForARequiredPropertyIsAnErrorAndWritesNothing() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let rex = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        do {
            try realm.write {
                rex.age = 3
                rex.setValue(nil, forKey: "name")
            }
            Issue.record("nil for a required property must fail")
        } catch let e as AtollError {
            #expect(e.kind == .requiredValueMissing)
            #expect(e.message.contains("name"))
        }
        #expect(rex.name == "Rex")
        #expect(rex.age == 0, "the whole transaction was rolled back")
        #expect(throws: AtollError.self) { try realm.write { realm.create(Dog.self, value: ["id": 2, "name": NSNull()]) } }
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func unmanagedObjectsWorkLikePlainObjectsUntilAdded() throws {
        let person = Person()
        person.name = "Ann"
        person.age = 30
        let dog = Dog(value: ["id": 1, "name": "Rex"])
        person.dogs.append(dog)
        dog.owner = person
        #expect(person.realm == nil && dog.realm == nil)
        #expect(!person.isInvalidated)
        #expect(person.dogs.first === dog)
        #expect(person.value(forKey: "age") as? Int == 30)
        person.setValue(31, forKey: "age")
        #expect(person.age == 31)

        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.add(person) }
        #expect(person.realm === realm)
        #expect(dog.realm === realm, "objects reachable from an added object are added with it")
        #expect(dog.owner?.name == "Ann")
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func inheritedPropertiesArePersisted() throws {
        let realm = try Realm(configuration: freshConfiguration([Duck.self]))
        #expect(Duck().objectSchema.properties.map(\.name).sorted() == ["age", "name"])
        try realm.write { realm.create(Duck.self, value: ["name": "Gustav", "age": 3]) }
        let gustav = try #require(realm.objects(Duck.self).first)
        #expect(gustav.name == "Gustav")
        #expect(gustav.age == 3)
    }

    @Test func invalidModelsAreRejectedWithAClearError() throws {
        do {
            _ = try Realm(configuration: freshConfiguration([BadLink.self]))
            Issue.record("a non-optional link must be rejected")
        } catch let e as AtollError {
            #expect(e.kind == .schemaMismatch)
            #expect(e.message.contains("owner") && e.message.contains("optional"))
        }
        do {
            _ = try Realm(configuration: freshConfiguration([TwoKeys.self]))
            Issue.record("two primary keys must be rejected")
        } catch let e as AtollError {
            #expect(e.message.contains("more than one primary key"))
        }
    }

    @Test func theSchemaIsDerivedOncePerClass() {
        #expect(Dog().objectSchema === Dog().objectSchema)
        #expect(ObjectSchema.of(Dog.self) === Dog().objectSchema)
    }

    @Test func objectIdsAreUniqueAndOrderedByCreation() throws {
        let a = ObjectId(), b = ObjectId()
        #expect(a != b)
        #expect(a < b)
        #expect(try ObjectId(string: a.description) == a)
        #expect(throws: AtollError.self) { try ObjectId(string: "xyz") }
    }
}
