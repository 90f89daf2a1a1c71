#if canImport(Glibc)
import Glibc
#endif
import Atoll
import Foundation
import Testing
import AtollTestSupport

@Suite struct ConfigurationTests {
    @Test func configurationHasRealmSwiftFieldsWithDefaults() {
        let c = Realm.Configuration(inMemoryIdentifier: "x")
        #expect(c.fileURL == nil)
        #expect(c.inMemoryIdentifier == "x")
        #expect(c.schemaVersion == 0)
        #expect(!c.readOnly)
        #expect(!c.deleteRealmIfMigrationNeeded)
        #expect(Realm.Configuration.defaultFileURL.path.hasSuffix("atoll/default.atoll"))
    }

    @Test func openErrorsAreThrownNotCrashes() throws {
        let dir = TemporaryDirectory()
        // A file that is not an Atoll database.
        let foreign = dir.file("notes.atoll")
        _ = FileManager.default.createFile(atPath: foreign, contents: Data(repeating: 0x41, count: 50_000))
        do { _ = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: foreign))); Issue.record("opened garbage") }
        catch let e as AtollError { #expect(e.kind == .notAnAtollFile) }
        // A path that cannot be written.
        do { _ = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: "/proc/atoll/x.atoll"))); Issue.record("opened unwritable path") }
        catch let e as AtollError { #expect([.fileAccessDenied, .fileNotFound, .ioError].contains(e.kind)) }
        // An in-memory realm with a key.
        do { _ = try Realm(configuration: .init(inMemoryIdentifier: "k", encryptionKey: Data(count: 64))); Issue.record("in-memory with key") }
        catch let e as AtollError { #expect(e.kind == .invalidArgument) }
        // Read-only on a missing file.
        do { _ = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: dir.file("missing.atoll")), readOnly: true)); Issue.record("read-only created a file") }
        catch let e as AtollError { #expect(e.kind == .fileNotFound) }
    }

    @Test func readOnlyRealmsReadButCannotWrite() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("ro.atoll"))
        do {
            let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self, Person.self]))
            try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Ro"]) }
        }
        let ro = try Realm(configuration: .init(fileURL: url, readOnly: true, objectTypes: [Dog.self, Person.self]))
        #expect(ro.objects(Dog.self).first?.name == "Ro")
        #expect(throws: AtollError.self) { try ro.write {} }
    }

    /// On read-only media (a read-only bind mount: EROFS, even for root) a read-only realm opens
    /// without a lock file, reads the newest version, and refuses writes; in a writable folder it
    /// leaves no lock file behind.
    @Test(.enabled(if: ReadOnlyMount.isSupported)) func readOnlyRealmsOpenOnReadOnlyMedia() throws {
        let media = try #require(ReadOnlyMount.make())
        let name = "shelf-\(UUID().uuidString).atoll"
        do {
            let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: media.writable.file(name)), objectTypes: [Dog.self, Person.self]))
            try realm.write {
                for i in 0..<50 { realm.create(Dog.self, value: ["id": i, "name": "dog \(i)", "age": i % 7]) }
            }
        }
        unlink(media.writable.file(name) + ".lock")
        let ro = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: media.file(name)), readOnly: true, objectTypes: [Dog.self, Person.self]))
        #expect(ro.objects(Dog.self).count == 50)
        #expect(ro.objects(Dog.self).filter("age == 3").count == 7)
        #expect { try ro.write {} } throws: { ($0 as? AtollError)?.kind == .readOnly }
        #expect(!FileManager.default.fileExists(atPath: media.writable.file(name) + ".lock"))

        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("ro.atoll"))
        try FileManager.default.copyItem(atPath: media.writable.file(name), toPath: url.path)
        do {
            let local = try Realm(configuration: .init(fileURL: url, readOnly: true, objectTypes: [Dog.self, Person.self]))
            #expect(local.objects(Dog.self).count == 50)
        }
        #expect(!FileManager.default.fileExists(atPath: url.path + ".lock"))
    }

    @Test func deleteFilesRemovesTheFileAndItsAuxiliaryFiles() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("gone.atoll"))
        let config = Realm.Configuration(fileURL: url, objectTypes: [Dog.self, Person.self])
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.create(Dog.self, value: ["id": 1]) }
            #expect(throws: AtollError.self) { try Realm.deleteFiles(for: config) }
        }
        #expect(try Realm.deleteFiles(for: config))
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".lock"))
    }

    @Test func shouldCompactOnLaunchGetsSizesAndCompacts() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("compact.atoll"))
        do {
            let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self, Person.self]))
            try realm.write { for i in 0..<5000 { realm.create(Dog.self, value: ["id": i, "name": String(repeating: "n", count: 100)]) } }
            try realm.write { realm.delete(realm.objects(Dog.self).filter("id >= 100")) }
        }
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        final class Seen: @unchecked Sendable { var total = 0; var used = 0 }
        let seen = Seen()
        let realm = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: { total, used in
            seen.total = total; seen.used = used
            return used < total / 2
        }, objectTypes: [Dog.self, Person.self]))
        #expect(seen.total == before)
        #expect(seen.used > 0 && seen.used < seen.total)
        #expect(realm.objects(Dog.self).count == 100)
        let after = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        #expect(after < before)
    }

    @Test func maximumNumberOfActiveVersionsIsEnforced() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "versions-\(UUID())", objectTypes: [Dog.self, Person.self], maximumNumberOfActiveVersions: 3)
        let realm = try Realm(configuration: config)
        var frozen: [Realm] = []
        var failed: AtollError?
        for i in 0..<6 {
            do {
                try realm.write { realm.create(Dog.self, value: ["id": i]) }
            } catch let e as AtollError { failed = e; break }
            frozen.append(realm.freeze())
        }
        #expect(failed?.kind == .tooManyActiveVersions)
        #expect(failed?.message.contains("maximum of 3") == true)
    }
}

@Suite struct OpenErrorTests {
    @Test func aCorruptedFileIsRefusedWithAnError() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("corrupt.atoll"))
        do {
            let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self, Person.self]))
            try realm.write { for i in 0..<100 { realm.create(Dog.self, value: ["id": i, "name": "dog \(i)"]) } }
        }
        // Scribble over both header slots and the first pages.
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: 0)
        handle.write(Data(repeating: 0x5A, count: 3 * 4096))
        try handle.close()
        do {
            _ = try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self, Person.self]))
            Issue.record("a corrupted file must be refused")
        } catch let e as AtollError {
            #expect([.fileCorrupted, .notAnAtollFile].contains(e.kind), "\(e)")
        }
    }

    @Test func aClassThatIsNotAValidModelIsRefusedAtOpen() throws {
        do {
            _ = try Realm(configuration: freshConfiguration([BadLink.self]))
            Issue.record("an invalid model must be refused")
        } catch let e as AtollError {
            #expect(e.kind == .schemaMismatch)
        }
    }

    @Test func aReadOnlyRealmWithoutAClassesTableReadsNoObjects() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("ro.atoll"))
        do {
            let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [Book.self, Person.self]))
            try realm.write { realm.create(Book.self, value: ["title": "T"]) }
        }
        let ro = try Realm(configuration: .init(fileURL: url, readOnly: true))
        #expect(ro.objects(Book.self).count == 1)
        #expect(ro.objects(Contact.self).isEmpty, "no table: no objects, and no crash")
        #expect(ro.object(ofType: Contact.self, forPrimaryKey: 1) == nil)
    }
}
