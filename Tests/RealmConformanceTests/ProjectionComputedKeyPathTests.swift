// Projected properties whose key path goes through a computed property that reads several
// stored properties (`@Projected(\Person.fullName)`, fullName reading firstName and lastName).
// realm-swift records such a key path as one dotted name made of both reads; Atoll records each
// stored path it reads, so the projected property reads, describes itself and is observed
// through every one of them.

import Atoll
import Foundation
import Testing

final class ComputedNamePerson: Object {
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
    @Persisted var partner: ComputedNamePerson?

    /// Reads two stored properties.
    var fullName: String { "\(firstName) \(lastName)" }
}

final class ComputedNameView: Projection<ComputedNamePerson> {
    @Projected(\ComputedNamePerson.fullName) var fullName
    @Projected(\ComputedNamePerson.partner?.fullName) var partnerName
    @Projected(\ComputedNamePerson.age) var age
}

@Suite struct ProjectionComputedKeyPathTests {
    let t = RealmTestCase()

    private func populatedRealm() throws -> Realm {
        let realm = try t.realmWithTestPath()
        try realm.write {
            let john = realm.create(ComputedNamePerson.self, value: ["firstName": "John", "lastName": "Snow", "age": 20])
            let daenerys = realm.create(ComputedNamePerson.self, value: ["firstName": "Daenerys", "lastName": "Targaryen", "age": 21])
            john.partner = daenerys
        }
        return realm
    }

    @Test func computedKeyPathReadingTwoPropertiesIsReadThroughTheObject() throws {
        let realm = try populatedRealm()
        let john = try #require(realm.objects(ComputedNameView.self).first { $0.age == 20 })
        #expect(john.fullName == "John Snow")
        #expect(john.partnerName == "Daenerys Targaryen")
        #expect(john.description.contains("fullName(\\.firstName, \\.lastName) = John Snow;"))
        #expect(john.description.contains("partnerName(\\.partner.firstName, \\.partner.lastName) = Optional(\"Daenerys Targaryen\");"))
    }

    @Test func changingEitherStoredPropertyReportsTheComputedProperty() throws {
        let realm = try populatedRealm()
        let john = try #require(realm.objects(ComputedNameView.self).first { $0.age == 20 })
        var changes: [[String]] = []
        var values: [(String?, String?)] = []
        let token = john.observe(keyPaths: [\ComputedNameView.fullName]) { change in
            guard case .change(_, let properties) = change else {
                Issue.record("expected .change, got \(change)")
                return
            }
            changes.append(properties.map(\.name))
            values += properties.map { ($0.oldValue as? String, $0.newValue as? String) }
        }
        let configuration = t.configurationWithTestPath()
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let john = realm.objects(ComputedNamePerson.self).filter("age == 20").first!
            try! realm.write { john.lastName = "Stark" }
        }
        realm.refresh()
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let john = realm.objects(ComputedNamePerson.self).filter("age == 20").first!
            try! realm.write { john.age = 30 }  // not read by fullName: no call
        }
        realm.refresh()
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let john = realm.objects(ComputedNamePerson.self).filter("age == 20 || age == 30").first!
            try! realm.write { john.firstName = "Jon" }
        }
        realm.refresh()
        token.invalidate()
        #expect(changes == [["fullName"], ["fullName"]])
        #expect(values.map(\.0) == ["John Snow", "John Stark"])
        #expect(values.map(\.1) == ["John Stark", "Jon Stark"])
    }

    @Test func projectionResultsObserveEveryStoredPathOfAComputedProperty() throws {
        let realm = try populatedRealm()
        let views = realm.objects(ComputedNameView.self)
        var modifications: [[Int]] = []
        let token = views.observe { change in
            if case .update(_, _, _, let modified) = change { modifications.append(modified) }
        }
        realm.refresh()
        try realm.write { realm.objects(ComputedNamePerson.self).filter("age == 21").first!.firstName = "Dany" }
        realm.refresh()
        token.invalidate()
        // Daenerys's own fullName and John's partnerName both read her firstName.
        #expect(modifications.count == 1)
        #expect(Set(modifications.first ?? []) == [0, 1])
    }
}
