// `Realm.thaw()` of a frozen realm, as RealmSwift defines it: the calling thread's live
// instance of the file (RealmSwift's thread-cached `Realm`), at the version it reads, or a realm
// at the newest version when the thread has none open. (realm-swift's RealmTests.testThaw is
// ported in RealmTests.swift.)

import Atoll
import Foundation
import Testing

@Suite struct RealmThawTests {
    let t = RealmTestCase()

    @Test func thawingAFrozenRealmReturnsTheThreadsLiveInstanceAtItsVersion() throws {
        let realm = try t.realm()
        // Atoll refreshes a thread's realm when the commit's notification reaches it, which can
        // be before the thaw below: without autorefresh `realm` stays at its version.
        realm.autorefresh = false
        #expect(realm.objects(SwiftBoolObject.self).count == 0)
        let frozen = realm.freeze()
        // Another thread commits: `realm` has not refreshed to it yet.
        let configuration = realm.configuration
        t.dispatchSyncNewThread {
            let writer = try! Realm(configuration: configuration)
            try! writer.write { writer.create(SwiftBoolObject.self, value: ["boolCol": true]) }
        }
        let thawed = frozen.thaw()
        #expect(thawed === realm)
        #expect(!thawed.isFrozen)
        #expect(thawed.objects(SwiftBoolObject.self).count == 0)
        thawed.refresh()
        #expect(realm.objects(SwiftBoolObject.self).count == 1)
    }

    @Test func thawingOnAThreadWithoutALiveInstanceOpensOneAtTheNewestVersion() throws {
        let realm = try t.realm()
        let frozen = Handoff(realm.freeze())
        try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
        let counts = LockedValue<[Int]>([])
        t.dispatchSyncNewThread {
            let thawed = frozen.value.thaw()
            counts.value.append(thawed.isFrozen ? -1 : thawed.objects(SwiftBoolObject.self).count)
        }
        #expect(counts.value == [1])
    }

    @Test func thawingALiveRealmReturnsItself() throws {
        let realm = try t.realm()
        #expect(realm.thaw() === realm)
    }
}
