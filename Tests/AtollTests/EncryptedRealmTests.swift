import Atoll
import Foundation
import Testing
import AtollTestSupport

/// `Realm.Configuration.encryptionKey` and `writeCopy(toFile:encryptionKey:)`, as in RealmSwift.
@Suite struct EncryptedRealmTests {
    static func randomKey() -> Data {
        var rng = SystemRandomNumberGenerator()
        return Data((0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    static func kind(_ body: () throws -> Void) -> AtollError.Kind? {
        do { try body() } catch let e as AtollError { return e.kind } catch { return nil }
        return nil
    }

    @Test func encryptedRealmRoundTripsAndRefusesWrongOrMissingKeys() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("secret.atoll"))
        let key = Self.randomKey()
        let config = Realm.Configuration(fileURL: url, encryptionKey: key, objectTypes: [Dog.self, Person.self])
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let owner = realm.create(Person.self, value: ["name": "Ada", "picture": Data(repeating: 7, count: 5000)])
                for i in 0..<200 { realm.create(Dog.self, value: ["id": i, "name": "confidential dog \(i)", "owner": owner]) }
            }
        }
        let bytes = try Data(contentsOf: url)
        #expect(bytes.range(of: Data("confidential dog".utf8)) == nil, "dog names must not be readable in the file")

        let realm = try Realm(configuration: config)
        #expect(realm.objects(Dog.self).count == 200)
        #expect(realm.objects(Dog.self).filter("name == 'confidential dog 42'").first?.owner?.name == "Ada")
        #expect(realm.object(ofType: Person.self, forPrimaryKey: "Ada")?.picture == Data(repeating: 7, count: 5000))

        var wrong = config
        wrong.encryptionKey = Self.randomKey()
        #expect(Self.kind { _ = try Realm(configuration: wrong) } == .invalidKey)
        var none = config
        none.encryptionKey = nil
        #expect(Self.kind { _ = try Realm(configuration: none) } == .fileEncrypted)
        var short = config
        short.encryptionKey = Data(count: 16)
        #expect(Self.kind { _ = try Realm(configuration: short) } == .invalidKey)
    }

    @Test func writeCopyEncryptsAndDecryptsARealm() throws {
        let dir = TemporaryDirectory()
        let key = Self.randomKey()
        let plainURL = URL(fileURLWithPath: dir.file("plain.atoll"))
        let secretURL = URL(fileURLWithPath: dir.file("secret.atoll"))
        let clearURL = URL(fileURLWithPath: dir.file("clear.atoll"))
        let types: [Object.Type] = [Dog.self, Person.self]
        do {
            let realm = try Realm(configuration: .init(fileURL: plainURL, objectTypes: types))
            try realm.write { for i in 0..<50 { realm.create(Dog.self, value: ["id": i, "name": "dog \(i)"]) } }
            try realm.writeCopy(toFile: secretURL, encryptionKey: key)
        }
        do {
            #expect(Self.kind { _ = try Realm(configuration: .init(fileURL: secretURL, objectTypes: types)) } == .fileEncrypted)
            let secret = try Realm(configuration: .init(fileURL: secretURL, encryptionKey: key, objectTypes: types))
            #expect(secret.objects(Dog.self).count == 50)
            try secret.writeCopy(toFile: clearURL)
        }
        let clear = try Realm(configuration: .init(fileURL: clearURL, objectTypes: types))
        #expect(clear.object(ofType: Dog.self, forPrimaryKey: 49)?.name == "dog 49")
    }

    @Test func compactOnLaunchKeepsAnEncryptedRealmEncrypted() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("compact.atoll"))
        let key = Self.randomKey()
        let types: [Object.Type] = [Dog.self, Person.self]
        do {
            let realm = try Realm(configuration: .init(fileURL: url, encryptionKey: key, objectTypes: types))
            try realm.write { for i in 0..<3000 { realm.create(Dog.self, value: ["id": i, "name": String(repeating: "n", count: 100)]) } }
            try realm.write { realm.delete(realm.objects(Dog.self).filter("id >= 100")) }
        }
        let realm = try Realm(configuration: .init(fileURL: url, encryptionKey: key, shouldCompactOnLaunch: { total, used in used < total / 2 },
                                                   objectTypes: types))
        #expect(realm.objects(Dog.self).count == 100)
        #expect(Self.kind { _ = try Realm(configuration: .init(fileURL: url, objectTypes: types)) } == .fileEncrypted)
    }
}
