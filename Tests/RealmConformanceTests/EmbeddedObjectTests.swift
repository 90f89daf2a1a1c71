// Port of realm-swift's embedded-object tests, with realm-swift's expected values:
// - ObjectCreationTests: testDynamicCreateEmbeddedDirectly, testCreateEmbeddedWithDictionary,
//   testCreateEmbeddedWithUnmanagedObjects, testCreateEmbeddedFromManagedObjectInSameRealm,
//   testCreateEmbeddedFromManagedObjectInDifferentRealm, testCreateObjectWithNestedEmbeddedType,
//   testAddEmbedded, testAddAndUpdateEmbedded, testAddAndUpdateChangedEmbedded;
// - ListTests: testAppendEmbedded, testSetEmbedded on the four kinds of list (standalone,
//   newly added, newly created, retrieved);
// - MapTests: testAppendEmbedded, testSetEmbedded on the same four kinds of map;
// - QueryTests: the embedded half of testImplicitBooleanOperation, testEqualEmbeddedObject,
//   testNotEqualEmbeddedObject.
// Models are realm-swift's (SwiftTestObjects.swift, ModernTestObjects.swift) with @Persisted.
//
// Where Atoll differs on purpose (README, "Differences from RealmSwift"): an invalid operation
// inside a write (`assertThrows(list.append(list[0]))`) makes the enclosing write throw an
// AtollError instead of raising at the call. RealmSwift's `realm.add(embedded)` does not
// compile (EmbeddedObject is not an Object there); in Atoll EmbeddedObject is a subclass of
// Object, so it compiles and fails the write.

import Atoll
import AtollTestSupport
import Foundation
import Testing

final class EmbeddedParentObject: Object {
    @Persisted var object: EmbeddedTreeObject1?
    @Persisted var array: List<EmbeddedTreeObject1>
    @Persisted var map: Map<String, EmbeddedTreeObject1?>
}

final class EmbeddedPrimaryParentObject: Object {
    @Persisted var pk: Int = 0
    @Persisted var object: EmbeddedTreeObject1?
    @Persisted var array: List<EmbeddedTreeObject1>

    override class func primaryKey() -> String? { "pk" }
}

protocol EmbeddedTreeObject: EmbeddedObject {
    var value: Int { get set }
}

final class EmbeddedTreeObject1: EmbeddedObject, EmbeddedTreeObject {
    @Persisted var value = 0
    @Persisted var child: EmbeddedTreeObject2?
    @Persisted var children: List<EmbeddedTreeObject2>

    @Persisted(originProperty: "object") var parent1: LinkingObjects<EmbeddedParentObject>
    @Persisted(originProperty: "array") var parent2: LinkingObjects<EmbeddedParentObject>
}

final class EmbeddedTreeObject2: EmbeddedObject, EmbeddedTreeObject {
    @Persisted var value = 0
    @Persisted var child: EmbeddedTreeObject3?
    @Persisted var children: List<EmbeddedTreeObject3>

    @Persisted(originProperty: "child") var parent3: LinkingObjects<EmbeddedTreeObject1>
    @Persisted(originProperty: "children") var parent4: LinkingObjects<EmbeddedTreeObject1>
}

final class EmbeddedTreeObject3: EmbeddedObject, EmbeddedTreeObject {
    @Persisted var value = 0

    @Persisted(originProperty: "child") var parent3: LinkingObjects<EmbeddedTreeObject2>
    @Persisted(originProperty: "children") var parent4: LinkingObjects<EmbeddedTreeObject2>
}

final class ObjectWithNestedEmbeddedObject: Object {
    @Persisted var value = 0
    @Persisted var inner: NestedInnerClass?

    final class NestedInnerClass: EmbeddedObject {
        @Persisted var value = 0
        override class func className() -> String { "ObjectWithNestedEmbeddedObject_NestedInnerClass" }
    }
}

final class ModernEmbeddedParentObject: Object {
    @Persisted var object: ModernEmbeddedTreeObject1?
    @Persisted var array: List<ModernEmbeddedTreeObject1>
}

final class ModernEmbeddedTreeObject1: EmbeddedObject {
    @Persisted var value = 0
    @Persisted var bool = false
    @Persisted var child: ModernEmbeddedTreeObject2?
    @Persisted var children: List<ModernEmbeddedTreeObject2>
}

final class ModernEmbeddedTreeObject2: EmbeddedObject {
    @Persisted var value = 0
}

@Suite struct EmbeddedObjectCreationTests {
    let t = RealmTestCase()

    @Test func testDynamicCreateEmbeddedDirectly() throws {
        _ = ObjectSchema.of(EmbeddedParentObject.self)
        let realm = try t.realm()
        realm.beginWrite()
        #expect { _ = try realm.dynamicCreate("EmbeddedTreeObject1") } throws: { error in
            (error as? AtollError)?.message.contains("Embedded objects cannot be created directly".lowercased()) == true
        }
        realm.cancelWrite()
    }

    @Test func testCreateEmbeddedWithDictionary() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let parent = realm.create(EmbeddedParentObject.self, value: [
            "object": ["value": 5, "child": ["value": 6], "children": [[7], [8]]] as [String: Any],
            "array": [[9], [10]]
        ])
        #expect(parent.object!.value == 5)
        #expect(parent.object!.child!.value == 6)
        #expect(parent.object!.children.count == 2)
        #expect(parent.object!.children[0].value == 7)
        #expect(parent.object!.children[1].value == 8)
        #expect(parent.array.count == 2)
        #expect(parent.array[0].value == 9)
        #expect(parent.array[1].value == 10)

        #expect(parent.isSameObject(as: parent.object!.parent1.first!))
        #expect(parent.isSameObject(as: parent.array[0].parent2.first!))
        #expect(parent.isSameObject(as: parent.array[1].parent2.first!))
        #expect(parent.object!.isSameObject(as: parent.object!.child!.parent3.first!))
        #expect(parent.object!.isSameObject(as: parent.object!.children[0].parent4.first!))
        #expect(parent.object!.isSameObject(as: parent.object!.children[1].parent4.first!))
        realm.cancelWrite()
    }

    @Test func testCreateEmbeddedWithUnmanagedObjects() throws {
        let sourceObject = EmbeddedParentObject()
        sourceObject.object = .init(value: [5])
        sourceObject.object!.child = .init(value: [6])
        sourceObject.object!.children.append(.init(value: [7]))
        sourceObject.object!.children.append(.init(value: [8]))
        sourceObject.array.append(.init(value: [9]))
        sourceObject.array.append(.init(value: [10]))

        let realm = try t.realm()
        realm.beginWrite()
        let parent = realm.create(EmbeddedParentObject.self, value: sourceObject)
        #expect(sourceObject.realm == nil)
        #expect(parent.object!.value == 5)
        #expect(parent.object!.child!.value == 6)
        #expect(parent.object!.children.count == 2)
        #expect(parent.object!.children[0].value == 7)
        #expect(parent.object!.children[1].value == 8)
        #expect(parent.array.count == 2)
        #expect(parent.array[0].value == 9)
        #expect(parent.array[1].value == 10)
        realm.cancelWrite()
    }

    @Test func testCreateEmbeddedFromManagedObjectInSameRealm() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let parent = realm.create(EmbeddedParentObject.self, value: [
            "object": ["value": 5, "child": ["value": 6], "children": [[7], [8]]] as [String: Any],
            "array": [[9], [10]]
        ])
        let copy = realm.create(EmbeddedParentObject.self, value: parent)
        #expect(!parent.isSameObject(as: copy))
        #expect(copy.object!.value == 5)
        #expect(copy.object!.child!.value == 6)
        #expect(copy.object!.children.count == 2)
        #expect(copy.object!.children[0].value == 7)
        #expect(copy.object!.children[1].value == 8)
        #expect(copy.array.count == 2)
        #expect(copy.array[0].value == 9)
        #expect(copy.array[1].value == 10)
        // A copy, not a shared object.
        #expect(!copy.object!.isSameObject(as: parent.object!))
        try realm.commitWrite()
    }

    @Test func testCreateEmbeddedFromManagedObjectInDifferentRealm() throws {
        let realmA = try t.realmWithTestPath()
        let realmB = try t.realm()
        realmA.beginWrite()
        let parent = realmA.create(EmbeddedParentObject.self, value: [
            "object": ["value": 5, "child": ["value": 6], "children": [[7], [8]]] as [String: Any],
            "array": [[9], [10]]
        ])
        try realmA.commitWrite()

        realmB.beginWrite()
        let copy = realmB.create(EmbeddedParentObject.self, value: parent)
        #expect(!parent.isSameObject(as: copy))
        #expect(copy.object!.value == 5)
        #expect(copy.object!.child!.value == 6)
        #expect(copy.object!.children.count == 2)
        #expect(copy.object!.children[0].value == 7)
        #expect(copy.object!.children[1].value == 8)
        #expect(copy.array.count == 2)
        #expect(copy.array[0].value == 9)
        #expect(copy.array[1].value == 10)
        realmB.cancelWrite()
    }

    @Test func testCreateObjectWithNestedEmbeddedType() throws {
        let realm = try t.realm()
        let obj = try realm.write {
            realm.create(ObjectWithNestedEmbeddedObject.self, value: [1, [2]])
        }
        #expect(obj.value == 1)
        #expect(obj.inner!.value == 2)
    }

    final class EmbeddedObjectFactory {
        private var value = 0
        var objects = [EmbeddedObject]()

        func create<T: EmbeddedTreeObject>() -> T {
            let obj = T()
            obj.value = value
            value += 1
            objects.append(obj)
            return obj
        }
    }

    @Test func testAddEmbedded() throws {
        let objectFactory = EmbeddedObjectFactory()
        let parent = EmbeddedParentObject()
        parent.object = objectFactory.create() as EmbeddedTreeObject1
        parent.object!.child = objectFactory.create() as EmbeddedTreeObject2
        parent.object!.children.append(objectFactory.create())
        parent.object!.children.append(objectFactory.create())
        parent.array.append(objectFactory.create())
        parent.array.append(objectFactory.create())

        let realm = try t.realm()
        realm.beginWrite()
        realm.add(parent)
        for (i, object) in objectFactory.objects.enumerated() {
            #expect(object.realm === realm)
            #expect((object as! any EmbeddedTreeObject).value == i)
        }
        #expect(parent.object!.value == 0)
        #expect(parent.object!.child!.value == 1)
        #expect(parent.object!.children.count == 2)
        #expect(parent.object!.children[0].value == 2)
        #expect(parent.object!.children[1].value == 3)
        #expect(parent.array.count == 2)
        #expect(parent.array[0].value == 4)
        #expect(parent.array[1].value == 5)
        realm.cancelWrite()
    }

    private func makeTree(_ objectFactory: EmbeddedObjectFactory) -> EmbeddedPrimaryParentObject {
        let parent = EmbeddedPrimaryParentObject()
        parent.object = objectFactory.create() as EmbeddedTreeObject1
        parent.object!.child = objectFactory.create() as EmbeddedTreeObject2
        parent.object!.children.append(objectFactory.create())
        parent.object!.children.append(objectFactory.create())
        parent.array.append(objectFactory.create())
        parent.array.append(objectFactory.create())
        return parent
    }

    @Test func testAddAndUpdateEmbedded() throws {
        let objectFactory = EmbeddedObjectFactory()
        let parent = makeTree(objectFactory)
        let parent2 = makeTree(objectFactory)

        let realm = try t.realm()
        realm.beginWrite()
        realm.add(parent)
        realm.add(parent2, update: .all)

        // update all deletes the old embedded objects and creates new ones
        for (i, object) in objectFactory.objects.enumerated() {
            #expect(object.realm === realm)
            if i < 6 {
                #expect(object.isInvalidated)
            } else {
                #expect((object as! any EmbeddedTreeObject).value == i)
            }
        }
        #expect(parent.isSameObject(as: parent2))
        #expect(parent.object!.value == 6)
        #expect(parent.object!.child!.value == 7)
        #expect(parent.object!.children.count == 2)
        #expect(parent.object!.children[0].value == 8)
        #expect(parent.object!.children[1].value == 9)
        #expect(parent.array.count == 2)
        #expect(parent.array[0].value == 10)
        #expect(parent.array[1].value == 11)
        realm.cancelWrite()
    }

    @Test func testAddAndUpdateChangedEmbedded() throws {
        let objectFactory = EmbeddedObjectFactory()
        let parent = makeTree(objectFactory)
        let parent2 = makeTree(objectFactory)

        let realm = try t.realm()
        realm.beginWrite()
        realm.add(parent)
        realm.add(parent2, update: .modified)

        // update modified modifies the existing embedded objects
        for (i, object) in objectFactory.objects.enumerated() {
            #expect(object.realm === realm)
            #expect((object as! any EmbeddedTreeObject).value == (i < 6 ? i + 6 : i))
        }
        #expect(parent.isSameObject(as: parent2))
        #expect(parent.object!.value == 6)
        #expect(parent.object!.child!.value == 7)
        #expect(parent.object!.children.count == 2)
        #expect(parent.object!.children[0].value == 8)
        #expect(parent.object!.children[1].value == 9)
        #expect(parent.array.count == 2)
        #expect(parent.array[0].value == 10)
        #expect(parent.array[1].value == 11)
        realm.cancelWrite()
    }
}

enum EmbeddedFixtureKind: String, CaseIterable, Sendable {
    case standalone, newlyAdded, newlyCreated, retrieved
}

@Suite struct EmbeddedListAndMapTests {
    let t = RealmTestCase()

    /// realm-swift's createEmbeddedArray of each ListTests subclass, with the write its tests
    /// open (`list.realm?.beginWrite()`).
    private func embeddedArray(_ kind: EmbeddedFixtureKind, _ realm: Realm) throws -> List<EmbeddedTreeObject1> {
        switch kind {
        case .standalone:
            return List<EmbeddedTreeObject1>()
        case .newlyAdded:
            let parent = EmbeddedParentObject()
            let list = parent.array
            try realm.write { realm.add(parent) }
            return list
        case .newlyCreated:
            return try realm.write { realm.create(EmbeddedParentObject.self).array }
        case .retrieved:
            try realm.write { realm.create(EmbeddedParentObject.self) }
            return realm.objects(EmbeddedParentObject.self).first!.array
        }
    }

    /// realm-swift's createEmbeddedMap of each MapTests subclass (there inside the suite's open write).
    private func embeddedMap(_ kind: EmbeddedFixtureKind, _ realm: Realm) -> Map<String, EmbeddedTreeObject1?> {
        switch kind {
        case .standalone:
            return Map<String, EmbeddedTreeObject1?>()
        case .newlyAdded:
            let parent = EmbeddedParentObject()
            let map = parent.map
            realm.add(parent)
            return map
        case .newlyCreated:
            return realm.create(EmbeddedParentObject.self).map
        case .retrieved:
            realm.create(EmbeddedParentObject.self)
            return realm.objects(EmbeddedParentObject.self).first!.map
        }
    }

    @Test(arguments: EmbeddedFixtureKind.allCases)
    func testAppendEmbedded(_ kind: EmbeddedFixtureKind) throws {
        let realm = try t.realm()
        let list = try embeddedArray(kind, realm)

        list.realm?.beginWrite()
        for i in 0..<10 {
            list.append(EmbeddedTreeObject1(value: [i]))
        }
        #expect(10 == list.count)

        for (i, object) in list.enumerated() {
            #expect(i == object.value)
            #expect(list.realm === object.realm)
        }

        if let realm = list.realm {
            // "Cannot add an existing managed embedded object to a List."
            list.append(list[0])
            #expect(throws: AtollError.self) { try realm.commitWrite() }
        }
    }

    @Test(arguments: EmbeddedFixtureKind.allCases)
    func testSetEmbedded(_ kind: EmbeddedFixtureKind) throws {
        let realm = try t.realm()
        let list = try embeddedArray(kind, realm)

        list.realm?.beginWrite()
        list.append(EmbeddedTreeObject1(value: [0]))

        let oldObj = list[0]
        let obj = EmbeddedTreeObject1(value: [1])
        list[0] = obj
        #expect(list[0].isSameObject(as: obj))
        #expect(obj.value == 1)
        #expect(obj.realm === list.realm)

        if let realm = list.realm {
            #expect(oldObj.isInvalidated)
            // "Cannot add an existing managed embedded object to a List."
            list[0] = obj
            #expect(throws: AtollError.self) { try realm.commitWrite() }
        }
    }

    @Test(arguments: EmbeddedFixtureKind.allCases)
    func testMapAppendEmbedded(_ kind: EmbeddedFixtureKind) throws {
        let realm = try t.realm()
        realm.beginWrite()
        let map = embeddedMap(kind, realm)
        for i in 0..<10 {
            map["\(i)"] = EmbeddedTreeObject1(value: [i])
        }
        #expect(10 == map.count)

        for element in map {
            #expect(Int(element.key) == element.value!.value)
            #expect(map.realm === element.value!.realm)
        }

        if map.realm != nil {
            // "Cannot add an existing managed embedded object to a Dictionary."
            map["unassigned"] = map["0"]
            #expect(throws: AtollError.self) { try realm.commitWrite() }
        } else {
            realm.cancelWrite()
        }
    }

    @Test(arguments: EmbeddedFixtureKind.allCases)
    func testMapSetEmbedded(_ kind: EmbeddedFixtureKind) throws {
        let realm = try t.realm()
        realm.beginWrite()
        let map = embeddedMap(kind, realm)
        map["key"] = EmbeddedTreeObject1(value: [0])

        let oldObj = map["key"]
        let obj = EmbeddedTreeObject1(value: [1])
        map["key"] = obj
        #expect(map["key"]!!.isSameObject(as: obj))
        #expect(obj.value == 1)
        #expect(obj.realm === map.realm)

        if map.realm != nil {
            #expect(oldObj!!.isInvalidated)
            // "Cannot add an existing managed embedded object to a Dictionary."
            map["key"] = obj
            #expect(throws: AtollError.self) { try realm.commitWrite() }
        } else {
            realm.cancelWrite()
        }
    }
}

@Suite struct EmbeddedQueryTests {
    let t = RealmTestCase()

    @Test func testImplicitBooleanOperationThroughEmbeddedObject() throws {
        let realm = try t.realm()
        let object = ModernEmbeddedParentObject()
        let nestedObject = ModernEmbeddedTreeObject1()
        object.object = nestedObject
        try realm.write {
            realm.add(object)
        }
        #expect(realm.objects(ModernEmbeddedParentObject.self).filter("object.bool == true").count == 0)
        #expect(realm.objects(ModernEmbeddedParentObject.self).where { $0.object.bool }.count == 0)
        #expect(realm.objects(ModernEmbeddedParentObject.self).filter("object.bool == false").count == 1)
        #expect(realm.objects(ModernEmbeddedParentObject.self).where { !$0.object.bool }.count == 1)
    }

    @Test func testEqualEmbeddedObject() throws {
        let realm = try t.realm()
        let object = ModernEmbeddedParentObject()
        let nestedObject = ModernEmbeddedTreeObject1()
        nestedObject.value = 123
        object.object = nestedObject
        try realm.write {
            realm.add(object)
        }

        let result1 = realm.objects(ModernEmbeddedParentObject.self).where {
            $0.object == nestedObject
        }
        #expect(result1.count == 1)

        let nestedObject2 = ModernEmbeddedTreeObject1()
        nestedObject2.value = 123
        let result2 = realm.objects(ModernEmbeddedParentObject.self).where {
            $0.object == nestedObject2
        }
        #expect(result2.count == 0)
    }

    @Test func testNotEqualEmbeddedObject() throws {
        let realm = try t.realm()
        let object = ModernEmbeddedParentObject()
        let nestedObject = ModernEmbeddedTreeObject1()
        nestedObject.value = 123
        object.object = nestedObject
        try realm.write {
            realm.add(object)
        }

        let result1 = realm.objects(ModernEmbeddedParentObject.self).where {
            $0.object != nestedObject
        }
        #expect(result1.count == 0)

        let nestedObject2 = ModernEmbeddedTreeObject1()
        nestedObject2.value = 123
        let result2 = realm.objects(ModernEmbeddedParentObject.self).where {
            $0.object != nestedObject2
        }
        #expect(result2.count == 1)
    }
}
