// Port of realm-swift's RealmSwift/Tests/ProjectionTests.swift, with realm-swift's expected values.
//
// Ported (all pass): testProjectionManualInit, testProjectionFromResult,
// testProjectionFromResultFiltered, testProjectionFromResultSorted, testProjectionEnumeration,
// testProjectionEquality, testDescription, testProjectionsRealmShouldNotBeNil,
// testProjectionFromResultSortedBirthday, testProjectionForAllRealmTypes (the types Atoll has),
// testAllPropertyTypesNotifications (the scalar, optional and list properties Atoll has),
// testObserveKeyPath, testObserveNestedProjection, testIsFrozen,
// testFreezingFrozenObjectReturnsSelf, testAccessFrozenObjectFromDifferentThread,
// testFrozenObjectEquality, testThaw, testThawDeleted, testThawPreviousVersion,
// testThawCreatedOnDifferentThread,
// testObserveComputedChange,
// testObserveMultipleProjectionsFromOneProperty.
// Adapted: realm-swift's CommonPerson has embedded `address` and `mobile` objects and a
// Decimal128 `money`; Atoll has neither type yet, so here they are ordinary linked objects and
// `money` is left out (the expected values are unchanged). `realm.objects(PersonProjection.self)`
// is a `ProjectionResults<PersonProjection>` (README). Writes realm-swift makes through a
// ThreadSafeReference to a projection are made through its object here. SimpleObject declares
// the defaults RealmSwift assumes (Atoll requires declared defaults; README). Then Atoll's own
// checks: projection results follow their objects (query, sort, observation of projected
// properties only), ProjectedCollection, writes through a projected property.
// Left out: testAllPropertyTypes (KVO: no Objective-C runtime), testObserveOnActor (actor
// notifications), the assertThrows tests (testFreezingDeletedObject, testFreezeFromWrongThread,
// testMutateFrozenObject, testObserveFrozenObject, testFreezeInsideWriteTransaction,
// testFailedProjection: Atoll stops the program for these misuses, which a test cannot catch
// in-process), testThawUpdatedOnDifferentThread (a ThreadSafeReference to a projection),
// testAdvancedProjection (MutableSet), and the Decimal128, AnyRealmValue, enum, set and map
// properties of AllTypesPrimitiveProjection.

import Atoll
import Foundation
import Testing

// MARK: Test objects definitions

class AllTypesPrimitiveProjection: Projection<ModernAllTypesObject> {
    @Projected(\ModernAllTypesObject.pk) var pk
    @Projected(\ModernAllTypesObject.boolCol) var boolCol
    @Projected(\ModernAllTypesObject.intCol) var intCol
    @Projected(\ModernAllTypesObject.int8Col) var int8Col
    @Projected(\ModernAllTypesObject.int16Col) var int16Col
    @Projected(\ModernAllTypesObject.int32Col) var int32Col
    @Projected(\ModernAllTypesObject.int64Col) var int64Col
    @Projected(\ModernAllTypesObject.floatCol) var floatCol
    @Projected(\ModernAllTypesObject.doubleCol) var doubleCol
    @Projected(\ModernAllTypesObject.stringCol) var stringCol
    @Projected(\ModernAllTypesObject.binaryCol) var binaryCol
    @Projected(\ModernAllTypesObject.dateCol) var dateCol
    @Projected(\ModernAllTypesObject.objectIdCol) var objectIdCol
    @Projected(\ModernAllTypesObject.objectCol) var objectCol
    @Projected(\ModernAllTypesObject.arrayCol) var arrayCol
    @Projected(\ModernAllTypesObject.uuidCol) var uuidCol

    @Projected(\ModernAllTypesObject.optIntCol) var optIntCol
    @Projected(\ModernAllTypesObject.optInt8Col) var optInt8Col
    @Projected(\ModernAllTypesObject.optInt16Col) var optInt16Col
    @Projected(\ModernAllTypesObject.optInt32Col) var optInt32Col
    @Projected(\ModernAllTypesObject.optInt64Col) var optInt64Col
    @Projected(\ModernAllTypesObject.optFloatCol) var optFloatCol
    @Projected(\ModernAllTypesObject.optDoubleCol) var optDoubleCol
    @Projected(\ModernAllTypesObject.optBoolCol) var optBoolCol
    @Projected(\ModernAllTypesObject.optStringCol) var optStringCol
    @Projected(\ModernAllTypesObject.optBinaryCol) var optBinaryCol
    @Projected(\ModernAllTypesObject.optDateCol) var optDateCol
    @Projected(\ModernAllTypesObject.optObjectIdCol) var optObjectIdCol
    @Projected(\ModernAllTypesObject.optUuidCol) var optUuidCol

    @Projected(\ModernAllTypesObject.arrayBool) var arrayBool
    @Projected(\ModernAllTypesObject.arrayInt) var arrayInt
    @Projected(\ModernAllTypesObject.arrayInt8) var arrayInt8
    @Projected(\ModernAllTypesObject.arrayInt16) var arrayInt16
    @Projected(\ModernAllTypesObject.arrayInt32) var arrayInt32
    @Projected(\ModernAllTypesObject.arrayInt64) var arrayInt64
    @Projected(\ModernAllTypesObject.arrayFloat) var arrayFloat
    @Projected(\ModernAllTypesObject.arrayDouble) var arrayDouble
    @Projected(\ModernAllTypesObject.arrayString) var arrayString
    @Projected(\ModernAllTypesObject.arrayBinary) var arrayBinary
    @Projected(\ModernAllTypesObject.arrayDate) var arrayDate
    @Projected(\ModernAllTypesObject.arrayObjectId) var arrayObjectId
    @Projected(\ModernAllTypesObject.arrayUuid) var arrayUuid

    @Projected(\ModernAllTypesObject.arrayOptBool) var arrayOptBool
    @Projected(\ModernAllTypesObject.arrayOptInt) var arrayOptInt
    @Projected(\ModernAllTypesObject.arrayOptInt8) var arrayOptInt8
    @Projected(\ModernAllTypesObject.arrayOptInt16) var arrayOptInt16
    @Projected(\ModernAllTypesObject.arrayOptInt32) var arrayOptInt32
    @Projected(\ModernAllTypesObject.arrayOptInt64) var arrayOptInt64
    @Projected(\ModernAllTypesObject.arrayOptFloat) var arrayOptFloat
    @Projected(\ModernAllTypesObject.arrayOptDouble) var arrayOptDouble
    @Projected(\ModernAllTypesObject.arrayOptString) var arrayOptString
    @Projected(\ModernAllTypesObject.arrayOptBinary) var arrayOptBinary
    @Projected(\ModernAllTypesObject.arrayOptDate) var arrayOptDate
    @Projected(\ModernAllTypesObject.arrayOptObjectId) var arrayOptObjectId
    @Projected(\ModernAllTypesObject.arrayOptUuid) var arrayOptUuid

    @Projected(\ModernAllTypesObject.linkingObjects) var linkingObjects
}

/// realm-swift's embedded AddressSwift, as a linked object (Atoll has no embedded objects yet).
class AddressSwift: Object {
    @Persisted var city: String = ""
    @Persisted var country = ""
}

class ExtraInfo: Object {
    @Persisted var phone: PhoneInfo?
    @Persisted var email: String?
}

class PhoneInfo: Object {
    @Persisted var mobile: Mobile?
}

/// realm-swift's embedded Mobile, as a linked object.
class Mobile: Object {
    @Persisted var number: String = ""
}

/// realm-swift's CommonPerson without `money` (Decimal128).
class CommonPerson: Object {
    @Persisted var firstName: String
    @Persisted var lastName = ""
    @Persisted var birthday: Date
    @Persisted var address: AddressSwift?
    @Persisted var extras: ExtraInfo?
    @Persisted var friends: List<CommonPerson>
    @Persisted var reviews: List<String>
}

final class PersonProjection: Projection<CommonPerson> {
    @Projected(\CommonPerson.firstName) var firstName
    @Projected(\CommonPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\CommonPerson.birthday.timeIntervalSince1970) var birthdayAsEpochtime
    @Projected(\CommonPerson.address?.city) var homeCity
    @Projected(\CommonPerson.extras?.email) var email
    @Projected(\CommonPerson.extras?.phone?.mobile?.number) var mobile
    @Projected(\CommonPerson.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
}

/// realm-swift's SimpleObject, with the defaults RealmSwift gives undeclared ones (Atoll requires
/// a declared default to create an object without the value; README, "Differences").
class SimpleObject: Object {
    @Persisted var int: Int = 0
    @Persisted var bool: Bool = false
}

final class SimpleProjection: Projection<SimpleObject> {
    @Projected(\SimpleObject.int) var int
}

final class MultipleProjectionsFromOneProperty: Projection<SimpleObject> {
    @Projected(\SimpleObject.int) var int1
    @Projected(\SimpleObject.int) var int2
    @Projected(\SimpleObject.int) var int3
}

// MARK: Tests

@Suite struct ProjectionTests {
    let t = RealmTestCase()

    func realmWithTestPath() -> Realm { try! t.realmWithTestPath() }


    var allTypeValues: [String: Any] {
        [
            "boolCol": true,
            "intCol": 10,
            "int8Col": 11 as Int8,
            "int16Col": 12 as Int16,
            "int32Col": 13 as Int32,
            "int64Col": 14 as Int64,
            "floatCol": 15 as Float,
            "doubleCol": 16 as Double,
            "stringCol": "a",
            "binaryCol": Data("b".utf8),
            "dateCol": Date(timeIntervalSince1970: 17),
            "objectIdCol": oid("6058f12b957ba06156586a7c"),
            "objectCol": ModernAllTypesObject(value: ["intCol": 1]),
            "arrayCol": [
                ModernAllTypesObject(value: ["pk": oid("6058f12682b2fbb1f334ef1d"), "intCol": 2]),
                ModernAllTypesObject(value: ["pk": oid("6058f12d42e5a393e67538d0"), "intCol": 3]),
            ],
            "uuidCol": UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fd")!,
            "optBoolCol": false,
            "optIntCol": 30,
            "optInt8Col": 31 as Int8,
            "optInt16Col": 32 as Int16,
            "optInt32Col": 33 as Int32,
            "optInt64Col": 34 as Int64,
            "optFloatCol": 35 as Float,
            "optDoubleCol": 36 as Double,
            "optStringCol": "c",
            "optBinaryCol": Data("d".utf8),
            "optDateCol": Date(timeIntervalSince1970: 37),
            "optObjectIdCol": oid("6058f12b957ba06156586a7c"),
            "optUuidCol": UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fd")!,
            "arrayBool": [true, false] as [Bool],
            "arrayInt": [1, 1, 2, 3] as [Int],
            "arrayInt8": [1, 2, 3, 1] as [Int8],
            "arrayInt16": [1, 2, 3, 1] as [Int16],
            "arrayInt32": [1, 2, 3, 1] as [Int32],
            "arrayInt64": [1, 2, 3, 1] as [Int64],
            "arrayFloat": [1 as Float, 2 as Float, 3 as Float, 1 as Float],
            "arrayDouble": [1 as Double, 2 as Double, 3 as Double, 1 as Double],
            "arrayString": ["a", "b", "c"] as [String],
            "arrayBinary": [Data("a".utf8)] as [Data],
            "arrayDate": [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1)] as [Date],
            "arrayObjectId": [oid("6058f12b957ba06156586a7c"), oid("6058f12682b2fbb1f334ef1d")],
            "arrayUuid": [UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fd")!, UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fe")!],
            "arrayOptBool": [true, false, nil] as [Bool?],
            "arrayOptInt": [1, 1, 2, 3, nil] as [Int?],
            "arrayOptInt8": [1, 2, 3, 1, nil] as [Int8?],
            "arrayOptInt16": [1, 2, 3, 1, nil] as [Int16?],
            "arrayOptInt32": [1, 2, 3, 1, nil] as [Int32?],
            "arrayOptInt64": [1, 2, 3, 1, nil] as [Int64?],
            "arrayOptFloat": [1 as Float, 2 as Float, 3 as Float, 1 as Float, nil],
            "arrayOptDouble": [1 as Double, 2 as Double, 3 as Double, 1 as Double, nil],
            "arrayOptString": ["a", "b", "c", nil],
            "arrayOptBinary": [Data("a".utf8), nil],
            "arrayOptDate": [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1), nil],
            "arrayOptObjectId": [oid("6058f12b957ba06156586a7c"), oid("6058f12682b2fbb1f334ef1d"), nil],
            "arrayOptUuid": [UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fd")!, UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fe")!, nil],
        ] as [String: Any]
    }

    func populatedRealm() -> Realm {
        let realm = realmWithTestPath()
        try! realm.write {
            let js = realm.create(CommonPerson.self, value: ["firstName": "John",
                                                             "lastName": "Snow",
                                                             "birthday": Date(timeIntervalSince1970: 10),
                                                             "address": ["city": "Winterfell", "country": "Kingdom in the North"],
                                                             "extras": ["phone": ["mobile": ["number": "555-555-555"]], "email": "john@doe.com"]])
            let dt = realm.create(CommonPerson.self, value: ["firstName": "Daenerys",
                                                             "lastName": "Targaryen",
                                                             "birthday": Date(timeIntervalSince1970: 0),
                                                             "address": ["city": "King's Landing", "country": "Westeros"]])
            js.friends.append(dt)
            dt.friends.append(js)

            realm.create(ModernAllTypesObject.self, value: allTypeValues)
        }
        return realm
    }

    @Test func testProjectionManualInit() {
        let realm = populatedRealm()
        let johnSnow = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
        // this step will happen under the hood
        let pp = PersonProjection(projecting: johnSnow)
        #expect(pp.homeCity == "Winterfell")
        #expect(pp.birthdayAsEpochtime == Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        #expect(pp.firstFriendsName.first! == "Daenerys")
    }

    @Test func testProjectionFromResult() {
        let realm = populatedRealm()
        let johnSnow: PersonProjection = realm.objects(PersonProjection.self).first!
        #expect(johnSnow.homeCity == "Winterfell")
        #expect(johnSnow.birthdayAsEpochtime == Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        #expect(johnSnow.firstFriendsName.first! == "Daenerys")
    }

    @Test func testProjectionFromResultFiltered() {
        let realm = populatedRealm()
        let johnSnow: PersonProjection = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
        #expect(johnSnow.homeCity == "Winterfell")
        #expect(johnSnow.birthdayAsEpochtime == Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        #expect(johnSnow.firstFriendsName.first! == "Daenerys")
    }

    @Test func testProjectionFromResultSorted() {
        let realm = populatedRealm()
        let dany: PersonProjection = realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName").first!
        #expect(dany.homeCity == "King's Landing")
        #expect(dany.birthdayAsEpochtime == Date(timeIntervalSince1970: 0).timeIntervalSince1970)
        #expect(dany.firstFriendsName.first! == "John")
    }

    @Test func testProjectionEnumeration() {
        let realm = populatedRealm()
        #expect(realm.objects(PersonProjection.self).count > 0)
        var seen = 0
        for proj in realm.objects(PersonProjection.self) {
            _ = proj
            seen += 1
        }
        #expect(seen == 2)
    }

    @Test func testProjectionEquality() {
        let realm = populatedRealm()
        let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
        let johnDefaultInit = PersonProjection(projecting: johnObject)
        let johnMapped = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
        let notJohn = realm.objects(PersonProjection.self).filter("lastName != 'Snow'").first!

        #expect(johnMapped == johnDefaultInit)
        #expect(johnMapped != notJohn)
    }

    @Test func testDescription() throws {
        let actual = populatedRealm().objects(PersonProjection.self).filter("lastName == 'Snow'").first!.description
        let expected = "PersonProjection<CommonPerson> <0x[0-9a-f]+> \\{\n\t\tfirstName\\(\\\\.firstName\\) = John;\n\tlastNameCaps\\(\\\\.lastName\\) = SNOW;\n\tbirthdayAsEpochtime\\(\\\\.birthday\\) = 10.0;\n\thomeCity\\(\\\\.address.city\\) = Optional\\(\"Winterfell\"\\);\n\temail\\(\\\\.extras.email\\) = Optional\\(\"john@doe.com\"\\);\n\tmobile\\(\\\\.extras.phone.mobile.number\\) = Optional\\(\"555-555-555\"\\);\n\tfirstFriendsName\\(\\\\.friends\\) = ProjectedCollection<String> \\{\n\t\\[0\\] Daenerys\n\\};\n\\}"
        let regex = try NSRegularExpression(pattern: "^" + expected + "$")
        let matches = regex.numberOfMatches(in: actual, range: NSRange(actual.startIndex..., in: actual))
        #expect(matches == 1, "\(actual)")
    }

    @Test func testProjectionsRealmShouldNotBeNil() {
        #expect(populatedRealm().objects(PersonProjection.self).first!.realm != nil)
    }

    @Test func testProjectionFromResultSortedBirthday() {
        let realm = populatedRealm()
        let dany: PersonProjection = realm.objects(PersonProjection.self).sorted(byKeyPath: "birthday").first!
        #expect(dany.homeCity == "King's Landing")
        #expect(dany.birthdayAsEpochtime == Date(timeIntervalSince1970: 0).timeIntervalSince1970)
        #expect(dany.firstFriendsName.first! == "John")
    }

    func assertEquivalent(_ actual: List<ModernAllTypesObject>, _ expected: [ModernAllTypesObject]) {
        #expect(actual.count == expected.count)
        for obj in expected {
            #expect(actual.contains { $0.pk == obj.pk })
        }
    }

    @Test func testProjectionForAllRealmTypes() {
        let allTypesModel = populatedRealm().objects(AllTypesPrimitiveProjection.self).first!
        let v = allTypeValues

        #expect(allTypesModel.boolCol == v["boolCol"] as! Bool)
        #expect(allTypesModel.intCol == v["intCol"] as! Int)
        #expect(allTypesModel.int8Col == v["int8Col"] as! Int8)
        #expect(allTypesModel.int16Col == v["int16Col"] as! Int16)
        #expect(allTypesModel.int32Col == v["int32Col"] as! Int32)
        #expect(allTypesModel.int64Col == v["int64Col"] as! Int64)
        #expect(allTypesModel.floatCol == v["floatCol"] as! Float)
        #expect(allTypesModel.doubleCol == v["doubleCol"] as! Double)
        #expect(allTypesModel.stringCol == v["stringCol"] as! String)
        #expect(allTypesModel.binaryCol == v["binaryCol"] as! Data)
        #expect(allTypesModel.dateCol == v["dateCol"] as! Date)
        assertEquivalent(allTypesModel.arrayCol, v["arrayCol"] as! [ModernAllTypesObject])
        #expect(allTypesModel.uuidCol == v["uuidCol"] as! UUID)

        #expect(allTypesModel.optBoolCol == v["optBoolCol"] as! Bool?)
        #expect(allTypesModel.optIntCol == v["optIntCol"] as! Int?)
        #expect(allTypesModel.optInt8Col == v["optInt8Col"] as! Int8?)
        #expect(allTypesModel.optInt16Col == v["optInt16Col"] as! Int16?)
        #expect(allTypesModel.optInt32Col == v["optInt32Col"] as! Int32?)
        #expect(allTypesModel.optInt64Col == v["optInt64Col"] as! Int64?)
        #expect(allTypesModel.optFloatCol == v["optFloatCol"] as! Float?)
        #expect(allTypesModel.optDoubleCol == v["optDoubleCol"] as! Double?)
        #expect(allTypesModel.optStringCol == v["optStringCol"] as! String?)
        #expect(allTypesModel.optBinaryCol == v["optBinaryCol"] as! Data?)
        #expect(allTypesModel.optDateCol == v["optDateCol"] as! Date?)
        #expect(allTypesModel.optObjectIdCol == v["optObjectIdCol"] as! ObjectId?)
        #expect(allTypesModel.optUuidCol == v["optUuidCol"] as! UUID?)

        #expect(Array(allTypesModel.arrayBool) == v["arrayBool"] as! [Bool])
        #expect(Array(allTypesModel.arrayInt) == v["arrayInt"] as! [Int])
        #expect(Array(allTypesModel.arrayInt8) == v["arrayInt8"] as! [Int8])
        #expect(Array(allTypesModel.arrayInt16) == v["arrayInt16"] as! [Int16])
        #expect(Array(allTypesModel.arrayInt32) == v["arrayInt32"] as! [Int32])
        #expect(Array(allTypesModel.arrayInt64) == v["arrayInt64"] as! [Int64])
        #expect(Array(allTypesModel.arrayFloat) == v["arrayFloat"] as! [Float])
        #expect(Array(allTypesModel.arrayDouble) == v["arrayDouble"] as! [Double])
        #expect(Array(allTypesModel.arrayString) == v["arrayString"] as! [String])
        #expect(Array(allTypesModel.arrayBinary) == v["arrayBinary"] as! [Data])
        #expect(Array(allTypesModel.arrayDate) == v["arrayDate"] as! [Date])
        #expect(Array(allTypesModel.arrayObjectId) == v["arrayObjectId"] as! [ObjectId])
        #expect(Array(allTypesModel.arrayUuid) == v["arrayUuid"] as! [UUID])

        #expect(Array(allTypesModel.arrayOptBool) == v["arrayOptBool"] as! [Bool?])
        #expect(Array(allTypesModel.arrayOptInt) == v["arrayOptInt"] as! [Int?])
        #expect(Array(allTypesModel.arrayOptInt8) == v["arrayOptInt8"] as! [Int8?])
        #expect(Array(allTypesModel.arrayOptInt16) == v["arrayOptInt16"] as! [Int16?])
        #expect(Array(allTypesModel.arrayOptInt32) == v["arrayOptInt32"] as! [Int32?])
        #expect(Array(allTypesModel.arrayOptInt64) == v["arrayOptInt64"] as! [Int64?])
        #expect(Array(allTypesModel.arrayOptFloat) == v["arrayOptFloat"] as! [Float?])
        #expect(Array(allTypesModel.arrayOptDouble) == v["arrayOptDouble"] as! [Double?])
        #expect(Array(allTypesModel.arrayOptString) == v["arrayOptString"] as! [String?])
        #expect(Array(allTypesModel.arrayOptBinary) == v["arrayOptBinary"] as! [Data?])
        #expect(Array(allTypesModel.arrayOptDate) == v["arrayOptDate"] as! [Date?])
        #expect(Array(allTypesModel.arrayOptObjectId) == v["arrayOptObjectId"] as! [ObjectId?])
        #expect(Array(allTypesModel.arrayOptUuid) == v["arrayOptUuid"] as! [UUID?])
    }

    /// realm-swift's expectPropertyChange + observeKeyPathChange: observe one projected property
    /// by its key path, change it (and int8Col, which the observation must ignore) on another
    /// thread, and check the one change reported: its name, old and new values.
    func observeKeyPathChange<E: Equatable>(
        _ obj: AllTypesPrimitiveProjection,
        _ keyPath: KeyPath<AllTypesPrimitiveProjection, E>,
        _ rootKeyPath: ReferenceWritableKeyPath<ModernAllTypesObject, E>,
        _ name: String, _ new: E, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let old = obj[keyPath: keyPath]
        var calls = 0
        let token = obj.observe(keyPaths: [keyPath]) { changes in
            calls += 1
            guard case let .change(_, properties) = changes else {
                Issue.record("Expected .change but got \(changes)", sourceLocation: sourceLocation)
                return
            }
            guard properties.count == 1 else {
                Issue.record("Expected one property change but got \(properties)", sourceLocation: sourceLocation)
                return
            }
            let prop = properties[0]
            #expect(prop.name == name, sourceLocation: sourceLocation)
            let actualOld = prop.oldValue as? E
            let actualNew = prop.newValue as? E
            if E.self != Optional<ModernAllTypesObject>.self {
                #expect(actualOld != actualNew, sourceLocation: sourceLocation)
                #expect(new == actualNew, sourceLocation: sourceLocation)
                #expect(old == actualOld, sourceLocation: sourceLocation)
            }
        }

        // Write on a background thread so that oldValue is present
        let configuration = t.configurationWithTestPath()
        nonisolated(unsafe) let newValue = new
        nonisolated(unsafe) let rootKeyPath = rootKeyPath
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let obj = realm.objects(ModernAllTypesObject.self).first!
            try! realm.write {
                obj.int8Col = 5 // Write to another property to verify keypath filtering works
                obj[keyPath: rootKeyPath] = newValue
            }
        }
        obj.realm!.refresh()
        #expect(calls == 1, "\(name)", sourceLocation: sourceLocation)
        token.invalidate()
    }

    /// realm-swift's observeKeyPathChange for lists: the new value is the same live list.
    func observeListKeyPathChange<E: RealmCollectionValue & Equatable & Sendable>(
        _ obj: AllTypesPrimitiveProjection,
        _ keyPath: KeyPath<AllTypesPrimitiveProjection, List<E>>,
        _ rootKeyPath: KeyPath<ModernAllTypesObject, List<E>>,
        _ name: String, _ new: E, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let old = Array(obj[keyPath: keyPath])
        var calls = 0
        let token = obj.observe(keyPaths: [keyPath]) { changes in
            calls += 1
            guard case let .change(object, properties) = changes, properties.count == 1 else {
                Issue.record("Expected one property change but got \(changes)", sourceLocation: sourceLocation)
                return
            }
            #expect(properties[0].name == name, sourceLocation: sourceLocation)
            let observedNew = properties[0].newValue as? List<E>
            #expect(observedNew.map(Array.init) == old + [new], sourceLocation: sourceLocation)
            #expect(Array(object[keyPath: keyPath]) == old + [new], sourceLocation: sourceLocation)
        }
        let configuration = t.configurationWithTestPath()
        nonisolated(unsafe) let rootKeyPath = rootKeyPath
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let obj = realm.objects(ModernAllTypesObject.self).first!
            try! realm.write {
                obj.int8Col = 5 // Write to another property to verify keypath filtering works
                obj[keyPath: rootKeyPath].append(new)
            }
        }
        obj.realm!.refresh()
        #expect(calls == 1, "\(name)", sourceLocation: sourceLocation)
        token.invalidate()
    }

    @Test func testAllPropertyTypesNotifications() {
        let realm = populatedRealm()
        let obs = realm.objects(AllTypesPrimitiveProjection.self).first!

        let data = Data("c".utf8)
        let date = Date(timeIntervalSince1970: 7)
        let objectId = ObjectId.generate()
        let uuid = UUID()

        observeKeyPathChange(obs, \.boolCol, \.boolCol, "boolCol", false)
        observeKeyPathChange(obs, \.intCol, \.intCol, "intCol", 2)
        observeKeyPathChange(obs, \.int8Col, \.int8Col, "int8Col", 2)
        observeKeyPathChange(obs, \.int16Col, \.int16Col, "int16Col", 2)
        observeKeyPathChange(obs, \.int32Col, \.int32Col, "int32Col", 2)
        observeKeyPathChange(obs, \.int64Col, \.int64Col, "int64Col", 2)
        observeKeyPathChange(obs, \.floatCol, \.floatCol, "floatCol", 2.0)
        observeKeyPathChange(obs, \.doubleCol, \.doubleCol, "doubleCol", 2.0)
        observeKeyPathChange(obs, \.stringCol, \.stringCol, "stringCol", "def")
        observeKeyPathChange(obs, \.binaryCol, \.binaryCol, "binaryCol", data)
        observeKeyPathChange(obs, \.dateCol, \.dateCol, "dateCol", date)
        observeKeyPathChange(obs, \.objectIdCol, \.objectIdCol, "objectIdCol", objectId)
        observeKeyPathChange(obs, \.uuidCol, \.uuidCol, "uuidCol", uuid)
        observeKeyPathChange(obs, \.optIntCol, \.optIntCol, "optIntCol", 2)
        observeKeyPathChange(obs, \.optInt8Col, \.optInt8Col, "optInt8Col", 2)
        observeKeyPathChange(obs, \.optInt16Col, \.optInt16Col, "optInt16Col", 2)
        observeKeyPathChange(obs, \.optInt32Col, \.optInt32Col, "optInt32Col", 2)
        observeKeyPathChange(obs, \.optInt64Col, \.optInt64Col, "optInt64Col", 2)
        observeKeyPathChange(obs, \.optFloatCol, \.optFloatCol, "optFloatCol", 2.0)
        observeKeyPathChange(obs, \.optDoubleCol, \.optDoubleCol, "optDoubleCol", 2.0)
        observeKeyPathChange(obs, \.optBoolCol, \.optBoolCol, "optBoolCol", true)
        observeKeyPathChange(obs, \.optStringCol, \.optStringCol, "optStringCol", "def")
        observeKeyPathChange(obs, \.optBinaryCol, \.optBinaryCol, "optBinaryCol", data)
        observeKeyPathChange(obs, \.optDateCol, \.optDateCol, "optDateCol", date)
        observeKeyPathChange(obs, \.optObjectIdCol, \.optObjectIdCol, "optObjectIdCol", objectId)
        observeKeyPathChange(obs, \.optUuidCol, \.optUuidCol, "optUuidCol", uuid)

        observeListKeyPathChange(obs, \.arrayBool, \.arrayBool, "arrayBool", false)
        observeListKeyPathChange(obs, \.arrayInt, \.arrayInt, "arrayInt", 4)
        observeListKeyPathChange(obs, \.arrayInt8, \.arrayInt8, "arrayInt8", 4)
        observeListKeyPathChange(obs, \.arrayInt16, \.arrayInt16, "arrayInt16", 4)
        observeListKeyPathChange(obs, \.arrayInt32, \.arrayInt32, "arrayInt32", 4)
        observeListKeyPathChange(obs, \.arrayInt64, \.arrayInt64, "arrayInt64", 4)
        observeListKeyPathChange(obs, \.arrayFloat, \.arrayFloat, "arrayFloat", 4)
        observeListKeyPathChange(obs, \.arrayDouble, \.arrayDouble, "arrayDouble", 4)
        observeListKeyPathChange(obs, \.arrayString, \.arrayString, "arrayString", "d")
        observeListKeyPathChange(obs, \.arrayBinary, \.arrayBinary, "arrayBinary", data)
        observeListKeyPathChange(obs, \.arrayDate, \.arrayDate, "arrayDate", date)
        observeListKeyPathChange(obs, \.arrayObjectId, \.arrayObjectId, "arrayObjectId", objectId)
        observeListKeyPathChange(obs, \.arrayUuid, \.arrayUuid, "arrayUuid", uuid)
        observeListKeyPathChange(obs, \.arrayOptBool, \.arrayOptBool, "arrayOptBool", true)
        observeListKeyPathChange(obs, \.arrayOptInt, \.arrayOptInt, "arrayOptInt", 4)
        observeListKeyPathChange(obs, \.arrayOptInt8, \.arrayOptInt8, "arrayOptInt8", 4)
        observeListKeyPathChange(obs, \.arrayOptInt16, \.arrayOptInt16, "arrayOptInt16", 4)
        observeListKeyPathChange(obs, \.arrayOptInt32, \.arrayOptInt32, "arrayOptInt32", 4)
        observeListKeyPathChange(obs, \.arrayOptInt64, \.arrayOptInt64, "arrayOptInt64", 4)
        observeListKeyPathChange(obs, \.arrayOptFloat, \.arrayOptFloat, "arrayOptFloat", 4)
        observeListKeyPathChange(obs, \.arrayOptDouble, \.arrayOptDouble, "arrayOptDouble", 4)
        observeListKeyPathChange(obs, \.arrayOptString, \.arrayOptString, "arrayOptString", "d")
        observeListKeyPathChange(obs, \.arrayOptBinary, \.arrayOptBinary, "arrayOptBinary", data)
        observeListKeyPathChange(obs, \.arrayOptDate, \.arrayOptDate, "arrayOptDate", date)
        observeListKeyPathChange(obs, \.arrayOptObjectId, \.arrayOptObjectId, "arrayOptObjectId", objectId)
        observeListKeyPathChange(obs, \.arrayOptUuid, \.arrayOptUuid, "arrayOptUuid", uuid)
    }

    /// Writes on another thread to the test realm, then refreshes `realm`.
    func writeOnAnotherThread(_ realm: Realm, _ body: @escaping @Sendable (Realm) -> Void) {
        let configuration = t.configurationWithTestPath()
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { body(realm) }
        }
        realm.refresh()
    }

    @Test func testObserveKeyPath() {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!

        var calls = 0
        let token = johnProjection.observe(keyPaths: ["lastName"], on: nil) { _ in
            calls += 1
        }
        writeOnAnotherThread(realm) { realm in
            let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
            johnObject.lastName = "Targaryen"
        }
        #expect(calls == 1)
        token.invalidate()
    }

    @Test func testObserveNestedProjection() {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PersonProjection.self).first!

        var calls = 0
        let token = johnProjection.observe(keyPaths: [\PersonProjection.mobile]) { changes in
            if case .change(_, let propertyChange) = changes {
                #expect(propertyChange[0].name == "mobile")
                #expect((propertyChange[0].newValue as? String) == "529-345-678")
                calls += 1
            } else {
                Issue.record("expected .change, got \(changes)")
            }
        }
        writeOnAnotherThread(realm) { realm in
            let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
            johnObject.extras?.phone?.mobile?.number = "529-345-678"
        }
        #expect(calls == 1)
        token.invalidate()

        calls = 0
        let token2 = johnProjection.observe { changes in
            if case .change(_, let propertyChange) = changes {
                #expect(propertyChange[0].name == "email")
                #expect(propertyChange[0].newValue as? String == "joe@realm.com")
                calls += 1
            } else {
                Issue.record("expected .change, got \(changes)")
            }
        }
        writeOnAnotherThread(realm) { realm in
            let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
            johnObject.extras?.email = "joe@realm.com"
        }
        #expect(calls == 1)
        token2.invalidate()

        calls = 0
        let token3 = johnProjection.observe { changes in
            if case .change(_, let propertyChange) = changes {
                #expect(propertyChange[0].name == "homeCity")
                #expect(propertyChange[0].newValue as? String == "Barranquilla")
                calls += 1
            } else {
                Issue.record("expected .change, got \(changes)")
            }
        }
        writeOnAnotherThread(realm) { realm in
            let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
            johnObject.address?.city = "Barranquilla"
        }
        #expect(calls == 1)
        token3.invalidate()
    }

    func simpleProjection() -> SimpleProjection {
        let realm = realmWithTestPath()
        var obj: SimpleObject!
        try! realm.write {
            obj = realm.create(SimpleObject.self)
        }
        return SimpleProjection(projecting: obj)
    }

    @Test func testIsFrozen() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        #expect(!projection.isFrozen)
        #expect(frozen.isFrozen)
    }

    @Test func testFreezingFrozenObjectReturnsSelf() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        #expect(projection != frozen)
        #expect(!(projection.freeze() === frozen))
        #expect(frozen == frozen.freeze())
    }

    @Test func testAccessFrozenObjectFromDifferentThread() {
        let projection = simpleProjection()
        nonisolated(unsafe) let frozen = projection.freeze()
        nonisolated(unsafe) var value = -1
        t.dispatchSyncNewThread {
            value = frozen.int
        }
        #expect(value == 0)
    }

    @Test func testFrozenObjectEquality() {
        let projectionA = simpleProjection()
        let frozenA1 = projectionA.freeze()
        let frozenA2 = projectionA.freeze()
        #expect(frozenA1 == frozenA2)
        let projectionB = simpleProjection()
        let frozenB = projectionB.freeze()
        #expect(frozenA1 != frozenB)
    }

    @Test func testThaw() {
        let frozen = simpleProjection().freeze()
        #expect(frozen.isFrozen)
        let live = frozen.thaw()!
        #expect(!live.isFrozen)
        try! live.realm!.write {
            live.int = 2
        }
        #expect(live.int != frozen.int)
    }

    @Test func testThawDeleted() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        let realm = realmWithTestPath()

        #expect(frozen.isFrozen)
        try! realm.write {
            realm.deleteAll()
        }
        let thawed = frozen.thaw()
        #expect(thawed == nil, "Thaw should return nil when object was deleted")
    }

    @Test func testThawPreviousVersion() {
        let projection = simpleProjection()
        let frozen = projection.freeze()

        #expect(frozen.isFrozen)
        #expect(projection.int == frozen.int)
        try! projection.realm!.write {
            projection.int = 1
        }
        #expect(projection.int != frozen.int, "Frozen object shouldn't mutate")

        let thawed = frozen.thaw()!
        #expect(!thawed.isFrozen)
        #expect(thawed.int == projection.int, "Thawed object should reflect transactions since the original reference was frozen.")
    }

    @Test func testThawCreatedOnDifferentThread() {
        let realm = realmWithTestPath()
        #expect(realm.objects(SimpleProjection.self).count == 0)
        nonisolated(unsafe) var frozen: SimpleProjection!
        let unsafeSelf = self
        t.dispatchSyncNewThread {
            let projection = unsafeSelf.simpleProjection()
            frozen = projection.freeze()
        }
        #expect(frozen.thaw() == nil)
        #expect(realm.objects(SimpleProjection.self).count == 0)
        realm.refresh()
        #expect(realm.objects(SimpleProjection.self).count == 1)
    }

    @Test func testObserveComputedChange() throws {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PersonProjection.self).first!

        #expect(johnProjection.lastNameCaps == "SNOW")

        var calls = 0
        let token = johnProjection.observe(keyPaths: [\PersonProjection.lastNameCaps]) { chg in
            if case let .change(_, change) = chg {
                calls += 1
                guard let value = change.first else {
                    Issue.record("Change should contain PropertyChange")
                    return
                }
                #expect(value.name == "lastNameCaps")
                #expect(value.oldValue as? String == "SNOW")
                #expect(value.newValue as? String == "ALI")
            }
        }

        writeOnAnotherThread(realm) { realm in
            let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
            johnObject.lastName = "Ali"
        }
        #expect(calls == 1)
        token.invalidate()
    }

    @Test func testObserveMultipleProjectionsFromOneProperty() {
        let realm = realmWithTestPath()
        try! realm.write {
            realm.create(SimpleObject.self, value: ["int": 1, "bool": false])
        }
        let projection = realm.objects(MultipleProjectionsFromOneProperty.self).first!

        var calls = 0
        let token = projection.observe { c in
            if case let .change(_, change) = c {
                calls += 1
                #expect(change.count == 3)
                for (i, prop) in change.enumerated() {
                    #expect(prop.name == "int\(i + 1)")
                    #expect(prop.oldValue as? Int == 1)
                    #expect(prop.newValue as? Int == 2)
                }
            }
        }

        try! realm.write {}

        writeOnAnotherThread(realm) { realm in
            realm.objects(SimpleObject.self).first!.int = 2
        }
        #expect(calls == 1)
        token.invalidate()
    }

    // MARK: Atoll's own checks

    @Test func projectionResultsFollowTheirObjects() {
        let realm = populatedRealm()
        let people = realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName")
        #expect(people.map(\.firstName) == ["Daenerys", "John"])
        #expect(people.where { $0.lastName == "Snow" }.map(\.lastNameCaps) == ["SNOW"])
        #expect(people.index(of: people[1]) == 1)

        var updates: [[Int]] = []
        let token = people.observe { change in
            if case .update(_, _, _, let modifications) = change { updates.append(modifications) }
        }
        // firstName is projected; reviews is not, so changing it alone modifies nothing.
        try! realm.write { realm.objects(CommonPerson.self).filter("firstName == 'John'").first!.reviews.append("ok") }
        try! realm.write { realm.objects(CommonPerson.self).filter("firstName == 'John'").first!.firstName = "Jon" }
        #expect(updates == [[1]])
        #expect(people.map(\.firstName) == ["Daenerys", "Jon"])
        token.invalidate()

        let john = people[1]
        #expect(john.firstFriendsName.description == "ProjectedCollection<String> {\n\t[0] Daenerys\n}")
        try! realm.write { john.rootObject.friends.append(john.rootObject) }
        #expect(Array(john.firstFriendsName) == ["Daenerys", "Jon"])

        // A writable projected key path writes the object.
        let simple = simpleProjection()
        try! simple.realm!.write { simple.int = 7 }
        #expect(simple.rootObject.int == 7)
    }
}
