// Port of realm-swift's ProjectionTests.testObserveOnActor (RealmSwift/Tests/ProjectionTests.swift),
// with realm-swift's expected values: a projection observed on an actor, by property name and by
// key path of the projection, gets one `.change` per token for a change of its projected
// property, with the old and new values, and nothing for a change of another property.
// Adapted: realm-swift observes from the main actor and writes there; here the projection's
// realm is isolated to an actor (`ProjectionOwner`), which observes and writes, and the
// notifications go to another actor (`ProjectionChangeLog`, realm-swift's CustomGlobalActor).

import Atoll
import Foundation
import Testing

/// Receives the projection's changes on its own isolation.
actor ProjectionChangeLog {
    private(set) var entries: [String] = []

    func note(_ change: ObjectChange<SimpleProjection>) {
        guard case let .change(_, properties) = change else {
            entries.append("expected .change but got \(change)")
            return
        }
        guard properties.count == 1 else {
            entries.append("expected one property but got \(properties)")
            return
        }
        let prop = properties[0]
        entries.append("\(prop.name) \(prop.oldValue as? Int ?? -1) -> \(prop.newValue as? Int ?? -1)")
    }
}

/// Holds the projection, in a realm isolated to this actor.
actor ProjectionOwner {
    private var realm: Realm?
    private var projection: SimpleProjection?

    func open(_ configuration: Realm.Configuration) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        let object = try await realm.asyncWrite { realm.create(SimpleObject.self) }
        self.realm = realm
        projection = SimpleProjection(projecting: object)
    }

    func observe(on log: ProjectionChangeLog) async -> [NotificationToken] {
        guard let projection else { return [] }
        let block = { @Sendable (log: isolated ProjectionChangeLog, change: ObjectChange<SimpleProjection>) in
            log.note(change)
        }
        return [
            await projection.observe(keyPaths: ["int"], on: log, block),
            await projection.observe(keyPaths: [\.int], on: log, block),
        ]
    }

    func write(_ body: @Sendable (SimpleProjection) -> Void) async throws {
        guard let realm, let projection else { return }
        try await realm.asyncWrite { body(projection) }
    }
}

@Suite struct ProjectionActorTests {
    let t = RealmTestCase()

    @Test func testObserveOnActor() async throws {
        let owner = ProjectionOwner()
        try await owner.open(t.configurationWithTestPath())
        let log = ProjectionChangeLog()
        let tokens = await owner.observe(on: log)
        #expect(tokens.count == 2)

        // should not produce notification
        try await owner.write { $0.rootObject.bool = true }
        try await owner.write { $0.int = 1 }
        for _ in 0..<1000 where await log.entries.count < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Give a wrong notification (for the bool) time to arrive.
        try await Task.sleep(for: .milliseconds(100))
        #expect(await log.entries == ["int 0 -> 1", "int 0 -> 1"])
        tokens.forEach { $0.invalidate() }
    }
}
