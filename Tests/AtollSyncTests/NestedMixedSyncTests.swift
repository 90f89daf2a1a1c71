import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// A mixed value that holds a nested list or dictionary (Realm 10.51's AnyRealmValue.list and
/// .dictionary) does not sync yet: extracting it fails with an error that names the property, so
/// a realm that writes one never sends a wrong or partial value, and a changeset that carries one
/// is malformed.
@Suite struct NestedMixedSyncTests {
    @Test func extractingANestedCollectionIsRefusedWithAClearError() throws {
        for nested in [StorageValue.mixedList([.int(1)]), .mixedMap(["a": .string("b")])] {
            let clock = ManualClock()
            let (db, replica) = try AnyRealmValueSyncTests.node(clock: clock)
            try db.write { w in
                let t = try w.table(named: "Setting").unwrapped("Setting")
                let k = try t.create(primaryKey: .string("x"))
                try t.set(k, 1, nested)
            }
            #expect {
                try replica.extractLocalChanges()
            } throws: { error in
                guard let e = error as? AtollError else { return false }
                return e.kind == .typeMismatch && e.message.contains("'Setting.value'") && e.message.contains("nested list or dictionary")
                    && e.message.contains("sync does not carry yet")
            }
        }
    }

    @Test func aChangesetCarryingANestedCollectionIsMalformed() throws {
        let content = ChangesetContent(classes: ["Setting"], properties: ["value"], instructions: [
            .set(ObjectAddress(classIndex: 0, primaryKey: .string("x")), property: 0, value: .value(.mixedList([.int(1)]))),
        ])
        let origin = NodeID(high: 7, low: 7)
        let body = content.encode(origin: origin)
        #expect {
            _ = try ChangesetContent.decode(body, origin: origin)
        } throws: { ($0 as? AtollError)?.kind == .protocolViolation }
    }
}
