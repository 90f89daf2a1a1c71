import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// A mixed value that links an object (a typed link, `AnyRealmValue.object`) does not sync yet:
/// extracting it fails with an error that names the property and says what to do, and a
/// changeset that carries a table-local typed link is malformed.
@Suite struct TypedLinkSyncTests {
    @Test func extractingAMixedValueThatLinksAnObjectIsRefusedWithAClearError() throws {
        let clock = ManualClock()
        let (db, replica) = try AnyRealmValueSyncTests.node(clock: clock)
        try db.write { w in
            let people = try w.table(named: "Person").unwrapped("Person")
            let ann = try people.create(primaryKey: .string("ann"))
            let t = try w.table(named: "Setting").unwrapped("Setting")
            let k = try t.create(primaryKey: .string("x"))
            try t.set(k, 1, .typedLink(people.key, ann))
        }
        #expect {
            try replica.extractLocalChanges()
        } throws: { error in
            guard let e = error as? AtollError else { return false }
            return e.kind == .typeMismatch && e.message.contains("'Setting.value'") && e.message.contains("sync does not carry yet")
        }
    }

    @Test func aChangesetCarryingATypedLinkIsMalformed() throws {
        let content = ChangesetContent(classes: ["Setting"], properties: ["value"], instructions: [
            .set(ObjectAddress(classIndex: 0, primaryKey: .string("x")), property: 0, value: .value(.typedLink(TableKey(1), ObjectKey(2)))),
        ])
        let origin = NodeID(high: 7, low: 7)
        let body = content.encode(origin: origin)
        #expect {
            _ = try ChangesetContent.decode(body, origin: origin)
        } throws: { ($0 as? AtollError)?.kind == .protocolViolation }
    }
}
