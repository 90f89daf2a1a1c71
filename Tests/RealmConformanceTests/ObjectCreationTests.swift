// Port of realm-swift's RealmSwift/Tests/ObjectCreationTests.swift: the expected values are
// realm-swift's. SwiftObject here lacks intEnumCol, decimalCol, anyCol, setCol and mapCol
// (Support/SwiftTestObjects.swift). (First tests; the rest follow.)

import Atoll
import AtollTestSupport
import Foundation
import Testing

@Suite struct ObjectCreationTests {
    let t = RealmTestCase()

    @Test func testInitWithDefaults() {
        let object = SwiftObject()
        #expect(object.realm == nil)
        verifySwiftObjectWithDictionaryLiteral(object, dictionary: SwiftObject.defaultValues(), boolObjectValue: false,
                                               boolObjectListValues: [])
        #expect(object.realm == nil)
        #expect(object.objectCol!.realm == nil)
        #expect(object.arrayCol.realm == nil)
    }

    @Test func testInitWithOptionalDefaults() {
        let object = SwiftOptionalDefaultValuesObject()
        verifySwiftOptionalObjectWithDictionaryLiteral(object, dictionary: SwiftOptionalDefaultValuesObject.defaultValues(),
                                                       boolObjectValue: true)
    }

    @Test func testInitWithDefaultsAndDictionary() {
        let object = SwiftObject(value: ["intCol": 200])
        let valueDict = defaultSwiftObjectValuesWithReplacements(["intCol": 200])
        verifySwiftObjectWithDictionaryLiteral(object, dictionary: valueDict, boolObjectValue: false, boolObjectListValues: [])
    }

    @Test func testGenericInit() {
        func createObject<T: Object>() -> T { T() }
        let obj1: SwiftBoolObject = createObject()
        let obj2 = SwiftBoolObject()
        #expect(obj1.boolCol == obj2.boolCol, "object created via generic initializer should equal object created by calling initializer directly")
    }
}
