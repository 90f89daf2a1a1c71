// Port of realm-swift's RealmSwift/Tests/ObjectSchemaInitializationTests.swift: the tests about
// behaviour, expected values kept. Property types are checked through what Atoll's
// PropertyInfo exposes (`isList`, `isOptional`, `isIndexed`, `objectClassName`); RealmSwift's
// `Property.type` (PropertyType) comes with the RealmSwift-shaped schema API.
//
// Not ported:
// - testInvalidObjects, testNonRealmOptionalTypesDeclaredAsRealmOptional, testMultiplePrimaryKeys —
//   check `RLMObjectSchema(forObjectClass:)` exceptions for Objective-C declarations
//   (`@objc dynamic` properties of unsupported types, lazy properties, NSURL);
// - testPropertyPopulation, testModernPropertyPopulation, testCustomPropertyPopulation,
//   testCustomIndexableTypes, testCustomIndexed, testCustomPrimary, testModernIndexed,
//   testModernPrimary — need `@testable import` internals (RLMProperty, SchemaDiscoverable) and
//   custom persistable types.

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

    /// Without `.decimal128` (Atoll has no Decimal128).
    @Test func testOptionalProperties() {
        let schema = ObjectSchema.of(SwiftOptionalObject.self)
        for prop in schema.properties {
            #expect(prop.isOptional, "\(prop.name)")
        }
        let types = Set(schema.properties.map { $0.type })
        #expect(types == Set([.string, .string, .data, .date, .object, .int, .float, .double, .bool, .objectId, .UUID]))
    }

    @Test func testPrimaryKey() {
        #expect(SwiftObject().objectSchema.primaryKeyProperty == nil, "Object should default to having no primary key property")
        #expect(SwiftPrimaryStringObject().objectSchema.primaryKeyProperty?.name == "stringCol")
    }

    @Test func testIgnoredProperties() {
        let schema = SwiftIgnoredPropertiesObject().objectSchema
        #expect(schema["runtimeProperty"] == nil, "The object schema shouldn't contain ignored properties")
        #expect(schema["runtimeDefaultProperty"] == nil, "The object schema shouldn't contain ignored properties")
        #expect(schema["readOnlyProperty"] == nil, "The object schema shouldn't contain read-only properties")
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

    /// realm-swift's SwiftGenericPropsOrderingObject: the superclass's properties come first,
    /// then the class's in declaration order (used by testProperOrderingOfProperties).
    @Test func superclassPropertiesComeFirst() {
        #expect(SwiftGenericPropsOrderingObject().objectSchema.properties.map(\.name) ==
                ["parentFirstList", "parentFirstNumber", "parentSecondNumber",
                 "firstNumber", "firstArray", "secondNumber", "secondArray", "firstOptionalNumber",
                 "firstLinking", "secondLinking", "thirdNumber", "secondOptionalNumber"])
        #expect(SwiftArrayPropertySubclassObject().objectSchema.properties.map(\.name) ==
                ["name", "array", "intArray", "swiftObjArray", "boolArray"])
        #expect(SwiftOptionalPrimaryObject().objectSchema.properties.last?.name == "id")
    }
}
