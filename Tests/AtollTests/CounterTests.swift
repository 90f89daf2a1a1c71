import Atoll
import AtollStorage
import AtollSync
import Foundation
import Testing

final class Post: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var likes = 0
    @Persisted var shares: Int32 = 0
    @Persisted var views: Int?
    @Persisted var title = ""
}

/// Counters: `increment`/`decrement` on integer properties through the object and dynamic
/// APIs and `{"$inc": n}` in imports, recorded as additions so that sync adds them up.
@Suite struct CounterTests {
    @Test func theObjectAPIIncrementsManagedAndUnmanagedObjects() throws {
        let realm = try Realm(configuration: freshConfiguration([Post.self]))
        let post = Post()
        post.increment(\.likes)
        post.increment("likes", by: 4)
        post.decrement(\.shares, by: 2)
        #expect(post.likes == 5 && post.shares == -2)
        try realm.write { realm.add(post) }
        try realm.write {
            post.increment(\.likes, by: 10)
            post.decrement("likes")
            post.increment(\.shares)
        }
        #expect(post.likes == 14 && post.shares == -1)
        // An increment past the property's width fails the write and changes nothing.
        #expect(throws: AtollError.self) {
            try realm.write { post.increment(\.shares, by: Int32.max); post.increment(\.shares, by: 2) }
        }
        #expect(post.shares == -1)
        // A nil optional cannot be incremented; once set it can.
        #expect(throws: AtollError.self) { try realm.write { post.increment("views") } }
        try realm.write { post.views = 1; post.increment("views", by: 2) }
        #expect(post.views == 3)
    }

    @Test func theDynamicAPIIncrements() throws {
        let realm = try Realm(configuration: freshConfiguration([Post.self]))
        try realm.write { realm.create(Post.self, value: ["id": 1, "likes": 7]) }
        let post = try #require(try realm.dynamicObject(throwingOfType: "Post", forPrimaryKey: 1))
        try realm.write {
            try post.increment("likes", by: 3)
            try post.decrement("likes")
        }
        #expect(post["likes"] as? Int == 9)
        #expect(throws: AtollError.self) { try realm.write { try post.increment("title") } }
        #expect(throws: AtollError.self) { try realm.write { try post.increment("missing") } }
    }

    @Test func importUpdatesAddWithInc() throws {
        let realm = try Realm(configuration: freshConfiguration([Post.self]))
        func load(_ json: String) throws {
            let document = try ImportDocument(jsonBytes: Array(json.utf8), sourceName: "data.json")
            _ = try realm.write { try realm.importObjects(document, update: .modified) }
        }
        try load("{\"Post\": [{\"id\": 1, \"likes\": 5, \"shares\": 0, \"title\": \"a\"}]}")
        try load("{\"Post\": [{\"id\": 1, \"likes\": {\"$inc\": 2}}, {\"id\": 2, \"likes\": {\"$inc\": -3}, \"shares\": 0, \"title\": \"b\"}]}")
        #expect(realm.object(ofType: Post.self, forPrimaryKey: 1)?.likes == 7)
        #expect(realm.object(ofType: Post.self, forPrimaryKey: 2)?.likes == -3, "a new object's counter starts at 0")
        do {
            try load("{\"Post\": [{\"id\": 1, \"title\": {\"$inc\": 1}}]}")
            Issue.record("$inc on a string was accepted")
        } catch let error as AtollError {
            #expect(error.message.contains("applies only to integer properties"))
        }
        do {
            try load("{\"Post\": [{\"id\": 1, \"likes\": {\"$inc\": 1.5}}]}")
            Issue.record("$inc 1.5 was accepted")
        } catch let error as AtollError {
            #expect(error.message.contains("needs an integer"))
        }
    }

    /// Two nodes each increment the same counter through the object API; after exchanging
    /// their changesets both hold the sum of every increment (a `likes += 1` would keep one).
    @Test func concurrentIncrementsOnTwoReplicasAllCount() throws {
        let ids = ["counter-a-\(UUID().uuidString)", "counter-b-\(UUID().uuidString)"]
        let realms = try ids.map { try Realm(configuration: Realm.Configuration(inMemoryIdentifier: $0, objectTypes: [Post.self])) }
        let replicas = try ids.map { id in
            try SyncReplica.open(try Database.open(DatabaseConfiguration(inMemoryIdentifier: id)),
                                 configuration: ReplicaConfiguration(realmID: "posts"))
        }
        func outgoing(_ replica: SyncReplica, after seq: UInt64) throws -> [Changeset] {
            _ = try replica.extractLocalChanges()
            return try replica.outgoingChangesets(after: seq)
        }
        try realms[0].write { realms[0].create(Post.self, value: ["id": 1, "likes": 100]) }
        let created = try outgoing(replicas[0], after: 0)
        _ = try replicas[1].apply(created)
        realms[1].refresh()
        #expect(realms[1].object(ofType: Post.self, forPrimaryKey: 1)?.likes == 100)

        // Concurrently: node A adds 1 three times, node B adds 10 and removes 2.
        let a = try #require(realms[0].object(ofType: Post.self, forPrimaryKey: 1))
        let b = try #require(realms[1].object(ofType: Post.self, forPrimaryKey: 1))
        for _ in 0..<3 { try realms[0].write { a.increment(\.likes) } }
        try realms[1].write { b.increment(\.likes, by: 10) }
        try realms[1].write { b.decrement(\.likes, by: 2) }
        let fromA = try outgoing(replicas[0], after: created.last?.seq ?? 0)
        let fromB = try outgoing(replicas[1], after: 0)
        _ = try replicas[0].apply(fromB)
        _ = try replicas[1].apply(fromA)
        for realm in realms { realm.refresh() }
        #expect(a.likes == 111)
        #expect(b.likes == 111)
    }
}
