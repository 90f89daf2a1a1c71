// CustomPersistable / FailableCustomPersistable behaviour: values stored as their persisted type
// in properties, optionals, List, MutableSet and Map; key-value coding with persisted values;
// sorting; and realm-swift's failable rules (ModernObjectAccessorTests
// .setAndTestFailableCustomMappings). The test types are in CustomPersistableQueryTests.swift.

import Atoll
import Foundation
import Testing

/// A failable mapping like the URL one of RealmSwift's CustomPersistable documentation, on a
/// type of the test's own (a conformance of Foundation's URL here would be retroactive): an
/// https address, or none (the empty string, so that the type's default maps, as RealmSwift
/// requires).
struct WebAddress: FailableCustomPersistable, Comparable {
    typealias PersistedType = String
    let address: String
    init(_ address: String) { self.address = address }
    init?(persistedValue: String) {
        guard persistedValue.isEmpty || persistedValue.hasPrefix("https://") else { return nil }
        address = persistedValue
    }
    var persistableValue: String { address }
    var url: URL? { URL(string: address) }
    static func < (a: WebAddress, b: WebAddress) -> Bool { a.address < b.address }
}

class CustomBookmark: Object {
    @Persisted var title = ""
    @Persisted var url = WebAddress("https://example.com")
    @Persisted var mirror: WebAddress?
    @Persisted var tags: MutableSet<StringWrapper>
    @Persisted var visits: List<DateWrapper>
    @Persisted var ratings: Map<String, IntWrapper>
}

class CustomIndexedObject: Object {
    @Persisted(indexed: true) var code: StringWrapper
    @Persisted(indexed: true) var optCode: IntWrapper?
}

@Suite struct CustomPersistableTests {
    let t = RealmTestCase()

    @Test func valuesAreStoredAsTheirPersistedTypeAndReadBack() throws {
        let config = Realm.Configuration(fileURL: t.defaultRealmURL, syncWrites: false)
        let when = Date(timeIntervalSince1970: 2_000_000)
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let o = AllCustomPersistableTypes()
                o.int = IntWrapper(persistedValue: 3)
                o.string = StringWrapper(persistedValue: "Foó")
                o.date = DateWrapper(persistedValue: when)
                o.decimal = Decimal128Wrapper(persistedValue: Decimal128(234.567))
                o.optInt = IntWrapper(persistedValue: 7)
                realm.add(o)
            }
        }
        let realm = try Realm(configuration: config)
        let o = try #require(realm.objects(AllCustomPersistableTypes.self).first)
        #expect(o.int.value == 3)
        #expect(o.string.value == "Foó")
        #expect(o.date.value == when)
        #expect(o.decimal.value == Decimal128(234.567))
        #expect(o.optInt?.value == 7)
        #expect(o.optString == nil)
        #expect(o.bool.value == false)
        // The schema stores the persisted types.
        let schema = try #require(realm.schema["AllCustomPersistableTypes"])
        #expect(schema["int"]?.type == .int)
        #expect(schema["string"]?.type == .string)
        #expect(schema["optInt"]?.isOptional == true)
        #expect(schema["int"]?.isOptional == false)
        // The dynamic API sees the persisted values.
        #expect(realm.dynamicObjects("AllCustomPersistableTypes").first?["int"] as? Int == 3)
        try realm.write { o.optInt = nil }
        #expect(o.optInt == nil)
    }

    @Test func collectionsHoldCustomValues() throws {
        let realm = try t.realm()
        let o = CustomPersistableCollections()
        o.listInt.append(objectsIn: [IntWrapper(persistedValue: 1), IntWrapper(persistedValue: 3), IntWrapper(persistedValue: 1)])
        o.listOptString.append(objectsIn: [StringWrapper(persistedValue: "a"), nil])
        o.setInt.insert(objectsIn: [IntWrapper(persistedValue: 1), IntWrapper(persistedValue: 3), IntWrapper(persistedValue: 1)])
        o.mapDouble["x"] = DoubleWrapper(persistedValue: 1.5)
        o.mapOptInt["none"] = .some(nil)
        try realm.write { realm.add(o) }
        #expect(o.listInt.map(\.value) == [1, 3, 1])
        #expect(o.listOptString.map { $0?.value } == ["a", nil])
        #expect(o.setInt.count == 2)
        #expect(o.setInt.contains(IntWrapper(persistedValue: 3)))
        #expect(o.mapDouble["x"]?.value == 1.5)
        #expect(o.mapOptInt.keys.contains("none"))
        try realm.write {
            o.setInt.remove(IntWrapper(persistedValue: 1))
            o.listInt.remove(at: 0)
            o.mapDouble["y"] = DoubleWrapper(persistedValue: -2)
        }
        #expect(Array(o.setInt.map(\.value)) == [3])
        #expect(o.listInt.map(\.value) == [3, 1])
        #expect(o.mapDouble["y"]?.value == -2)
        #expect(o.mapDouble.count == 2)
    }

    @Test func aFailableTypeMapsURLsAndSortsAndQueriesByThePersistedValue() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(CustomBookmark.self, value: ["title": "b", "url": WebAddress("https://b.example/")])
            realm.create(CustomBookmark.self, value: ["title": "a", "url": "https://a.example/", "mirror": WebAddress("https://m.example/")])
            realm.create(CustomBookmark.self, value: ["title": "c"])
        }
        let bookmarks = realm.objects(CustomBookmark.self)
        #expect(bookmarks.sorted(by: \.url).map(\.title) == ["a", "b", "c"])
        #expect(bookmarks.sorted(by: \.url, ascending: false).map(\.title) == ["c", "b", "a"])
        #expect(bookmarks.where { $0.url == WebAddress("https://b.example/") }.map(\.title) == ["b"])
        #expect(bookmarks.where { $0.url.persistableValue.starts(with: "https://a") }.map(\.title) == ["a"])
        #expect(bookmarks.where { $0.mirror != nil }.map(\.title) == ["a"])
        #expect(bookmarks.filter("url == %@", WebAddress("https://example.com")).map(\.title) == ["c"])
        #expect(bookmarks.where { $0.url > WebAddress("https://b.example/") }.map(\.title) == ["c"])
        #expect(bookmarks.first { $0.title == "a" }?.mirror?.url == URL(string: "https://m.example/"))
        #expect(bookmarks.first { $0.title == "c" }?.url.url?.host == "example.com")
        // An address the type cannot map, written through key-value coding: nil where optional.
        let a = try #require(bookmarks.first { $0.title == "a" })
        try realm.write { a["mirror"] = "ftp://m.example/" }
        #expect(a.mirror == nil)
        #expect(bookmarks.where { $0.mirror.persistableValue == "ftp://m.example/" }.count == 1)
    }

    @Test func indexedCustomPropertiesAreFoundThroughTheirIndex() throws {
        let realm = try t.realm()
        try realm.write {
            for i in 0..<50 {
                realm.create(CustomIndexedObject.self, value: ["code": "c\(i % 10)", "optCode": i % 5 == 0 ? nil as Int? as Any : i])
            }
        }
        let schema = try #require(realm.schema["CustomIndexedObject"])
        #expect(schema["code"]?.isIndexed == true)
        let objects = realm.objects(CustomIndexedObject.self)
        #expect(objects.where { $0.code == StringWrapper(persistedValue: "c3") }.count == 5)
        #expect(objects.where { $0.code.in([StringWrapper(persistedValue: "c3"), StringWrapper(persistedValue: "c4")]) }.count == 10)
        #expect(objects.where { $0.optCode == nil }.count == 10)
        #expect(objects.where { $0.optCode == IntWrapper(persistedValue: 7) }.count == 1)
        #expect(objects.where { $0.optCode >= IntWrapper(persistedValue: 45) }.map { $0.optCode?.value } == [46, 47, 48, 49])
    }

    // realm-swift: ModernObjectAccessorTests.setAndTestFailableCustomMappings on a managed object.
    @Test func failableMappingsOfAManagedObject() throws {
        let realm = try t.realm()
        try realm.write {
            let obj = realm.create(FailableCustomObject.self, value: ["int": 2])  // Atoll needs a value for a required property without a declared default
            obj["int"] = 2
            #expect(obj["int"] as? Int == 2)
            #expect(obj.value(forKey: "int") as? Int == 2)
            #expect(obj.int.persistableValue == 2)

            obj["optInt"] = 2
            #expect(obj["optInt"] as? Int == 2)
            #expect(obj.value(forKey: "optInt") as? Int == 2)
            #expect(obj.optInt!.persistableValue == 2)

            // A stored 1 has no IntFailableWrapper: nil in an optional context.
            obj["optInt"] = 1
            #expect(obj["optInt"] == nil)
            #expect(obj.value(forKey: "optInt") == nil)
            #expect(obj.optInt == nil)

            obj["optListInt"] = [2, 1]
            #expect(obj.optListInt.map { $0?.persistableValue } == [2, nil])
            obj["optMapInt"] = ["a": 1, "b": 2]
            #expect(obj.optMapInt["a"] == .some(nil))
            #expect(obj.optMapInt["b"]??.persistableValue == 2)
            // Queries see the persisted value, mapped or not.
            #expect(realm.objects(FailableCustomObject.self).where { $0.optInt.persistableValue == 1 }.count == 1)
        }
    }

    // realm-swift: the same on an unmanaged object, where the value is converted when set.
    @Test func failableMappingsOfAnUnmanagedObject() {
        let obj = FailableCustomObject()
        obj["int"] = 2
        #expect(obj["int"] as? Int == 2)
        #expect(obj.int.persistableValue == 2)
        // realm-swift raises "Could not convert value '1' to type 'IntFailableWrapper'."; an
        // unmanaged Atoll object refuses the value and keeps the old one (see Object.setValue).
        obj["int"] = 1
        #expect(obj.int.persistableValue == 2)

        obj["optInt"] = 2
        #expect(obj["optInt"] as? Int == 2)
        #expect(obj.optInt!.persistableValue == 2)
        obj["optInt"] = 1
        #expect(obj["optInt"] == nil)
        #expect(obj.optInt == nil)
    }

    // realm-swift raises "Failed to convert persisted value '1' to type 'IntFailableWrapper' in
    // a non-optional context."; Atoll stops the program with that message.
    @Test func readingAnUnmappableValueInANonOptionalContextStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atoll-failable-\(UUID().uuidString)")
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let realm = try! Realm(configuration: Realm.Configuration(fileURL: directory.appendingPathComponent("f.realm"), syncWrites: false))
            try! realm.write {
                let obj = realm.create(FailableCustomObject.self, value: ["int": 2])
                obj["int"] = 1
                _ = obj.int
            }
        }
    }
}
