// `SortDescriptor` where a file imports both Foundation and Atoll. Foundation has a generic
// `SortDescriptor<Compared>` too, and Swift finds both when the name is written alone in a type
// position ("ambiguous for type lookup"); neither module can hide the other's. RealmSwift's
// answer is to write `RealmSwift.SortDescriptor`. With Atoll:
// - in expressions, `SortDescriptor(keyPath: ...)` and `.init(keyPath:)` need nothing: only
//   Atoll's type has these initializers, so the call picks it;
// - in type positions, write `Atoll.SortDescriptor`, or add `import struct Atoll.SortDescriptor`
//   once per file, after which plain `SortDescriptor` is Atoll's everywhere in the file (a scoped
//   import outranks a module import), as this file does.

import Foundation
import Atoll
import struct Atoll.SortDescriptor
import Testing

@Suite struct SortDescriptorWithFoundationTests {
    let t = RealmTestCase()

    /// A type position, unqualified (the scoped import above).
    func byIntDescending() -> [SortDescriptor] {
        [SortDescriptor(keyPath: \TQAggregateObject.intCol, ascending: false)]
    }

    @Test func sortDescriptorInTypeAndExpressionPositions() throws {
        let realm = try t.realm()
        try realm.write {
            for i in [2, 3, 1] { realm.create(TQAggregateObject.self, value: ["intCol": i]) }
        }
        let objects = realm.objects(TQAggregateObject.self)
        let qualified: [Atoll.SortDescriptor] = [.init(keyPath: "intCol")]
        #expect(objects.sorted(by: qualified).map(\.intCol) == [1, 2, 3])
        #expect(objects.sorted(by: byIntDescending()).map(\.intCol) == [3, 2, 1])
        #expect(objects.sorted(by: [SortDescriptor(keyPath: "intCol", ascending: false)]).map(\.intCol) == [3, 2, 1])
        #expect(objects.sorted(by: \.intCol).map(\.intCol) == [1, 2, 3])
        let descriptor: SortDescriptor = SortDescriptor(keyPath: \TQAggregateObject.intCol)
        #expect(descriptor.keyPath == "intCol" && descriptor.ascending)
    }
}
