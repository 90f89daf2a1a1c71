import Atoll
import Foundation
import Testing
import AtollTestSupport

/// Two model classes named "Twin" (one model kept in two versions, or two modules' classes of
/// one name) and a class that links to one of them: used only by this suite.
final class TwinV1: Object {
    override class func className() -> String { "Twin" }
    @Persisted var name = ""
}

final class TwinV2: Object {
    override class func className() -> String { "Twin" }
    @Persisted var name = ""
    @Persisted var extra = 0
}

final class TwinHolder: Object {
    @Persisted var twin: TwinV2?
}

/// A realm opened without `objectTypes` checks the classes the program has used so far. A name
/// several classes share is not checked at open, and neither is a class that links to such a
/// name: its links would reach whichever class of that name it names, so the same file could
/// be checked against one class at one open and another at the next, and be refused as needing
/// a migration it does not need.
@Suite struct SharedClassNameTests {
    @Test func aClassLinkingToASharedNameDoesNotMakeTheNextOpenRequireAMigration() throws {
        let directory = TemporaryDirectory(prefix: "atoll-shared-names")
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("twins.atoll")))
        // Only TwinV1 is known: the file's "Twin" table is made from it.
        _ = ObjectSchema.of(TwinV1.self)
        let first = try Realm(configuration: configuration)
        #expect(first.schema["Twin"] != nil)
        // Now TwinV2 is known too, through the class that links to it.
        _ = ObjectSchema.of(TwinHolder.self)
        let second = try Realm(configuration: configuration)
        #expect(second.schema["Twin"] != nil)
        // A realm that names its classes still checks them.
        var named = configuration
        named.objectTypes = [TwinHolder.self]
        do {
            _ = try Realm(configuration: named)
            Issue.record("a realm naming TwinHolder opened a file whose Twin lacks 'extra'")
        } catch {
            #expect("\(error)".contains("'Twin.extra' has been added"), "\(error)")
        }
    }
}
