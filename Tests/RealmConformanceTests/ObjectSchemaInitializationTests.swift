// Port of realm-swift's RealmSwift/Tests/ObjectSchemaInitializationTests.swift: the tests about
// behaviour, expected values kept. (First tests; the rest follow.)

import Atoll
import Foundation
import Testing

@Suite struct ObjectSchemaInitializationTests {
    @Test func testAllValidTypes() {
        let objectSchema = SwiftObject().objectSchema
        #expect(objectSchema["noSuchCol"] == nil)

        for name in ["boolCol", "intCol", "floatCol", "doubleCol", "stringCol", "binaryCol", "dateCol", "uuidCol"] {
            let property = objectSchema[name]
            #expect(property?.name == name)
            #expect(property?.isIndexed == false)
            #expect(property?.isOptional == false)
            #expect(property?.objectClassName == nil)
            #expect(property?.isList == false)
        }

        let objectCol = objectSchema["objectCol"]
        #expect(objectCol?.name == "objectCol")
        #expect(objectCol?.isIndexed == false)
        #expect(objectCol?.isOptional == true)
        #expect(objectCol?.objectClassName == "SwiftBoolObject")

        let arrayCol = objectSchema["arrayCol"]
        #expect(arrayCol?.name == "arrayCol")
        #expect(arrayCol?.isList == true)
        #expect(arrayCol?.isIndexed == false)
        #expect(arrayCol?.isOptional == false)
        #expect(arrayCol?.objectClassName == "SwiftBoolObject")

        let dynamicArrayCol = SwiftCompanyObject().objectSchema["employees"]
        #expect(dynamicArrayCol?.name == "employees")
        #expect(dynamicArrayCol?.isList == true)
        #expect(dynamicArrayCol?.isIndexed == false)
        #expect(dynamicArrayCol?.isOptional == false)
        #expect(dynamicArrayCol?.objectClassName == "SwiftEmployeeObject")
    }

    @Test func testPrimaryKey() {
        #expect(SwiftObject().objectSchema.primaryKeyProperty == nil, "Object should default to having no primary key property")
        #expect(SwiftPrimaryStringObject().objectSchema.primaryKeyProperty?.name == "stringCol")
    }

    @Test func testIndexedProperties() {
        let schema = SwiftIndexedPropertiesObject().objectSchema
        for name in ["stringCol", "intCol", "int8Col", "int16Col", "int32Col", "int64Col", "boolCol", "dateCol"] {
            #expect(schema[name]?.isIndexed == true, "\(name)")
        }
        for name in ["floatCol", "doubleCol", "dataCol"] {
            #expect(schema[name]?.isIndexed == false, "\(name)")
        }
    }

    @Test func testImplicitlyUnwrappedOptionalsAreParsedAsOptionals() {
        let schema = SwiftImplicitlyUnwrappedOptionalObject().objectSchema
        for name in ["optObjectCol", "optStringCol", "optBinaryCol", "optDateCol", "optObjectIdCol", "optUuidCol"] {
            #expect(schema[name]?.isOptional == true, "\(name)")
        }
    }

    @Test func testNotExplicitlyIgnoredComputedProperties() {
        let schema = SwiftComputedPropertyNotIgnoredObject().objectSchema
        // The two computed properties should not appear on the schema.
        #expect(schema.properties.count == 1)
        #expect(schema["_urlBacking"] != nil)
    }

    @Test func testModernIndexableTypes() {
        for property in ModernAllIndexableTypesObject().objectSchema.properties {
            #expect(property.isIndexed, "\(property.name)")
        }
        for property in ModernAllIndexableButNotIndexedObject().objectSchema.properties {
            #expect(!property.isIndexed, "\(property.name)")
        }
    }
}
