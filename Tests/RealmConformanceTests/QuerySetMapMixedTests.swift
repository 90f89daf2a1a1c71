// Port of the type-safe query tests of realm-swift (RealmSwift/Tests/QueryTests.swift, generated
// from QueryTests.swift.gyb) on the types QueryTests.swift leaves out: MutableSet, Map,
// AnyRealmValue and Decimal128. realm-swift's expected counts and predicate texts are kept; as
// in QueryTests.swift, each case checks the count of `where { }`, that `_constructPredicate()`
// gives realm-swift's text and argument count, and that this text with realm-swift's arguments,
// run through the string API, selects the same objects in the same order.
//
// The model is realm-swift's ModernAllTypesObject cut down to its Decimal128, AnyRealmValue,
// MutableSet and Map properties (ModernAllTypesObject here must not change: other suites use it),
// filled with realm-swift's setUp values. Ported: every statement of the test functions below
// that reads only those properties (taken mechanically from the generated file). Left out:
// - `.object(...)` mixed values, and comparing a whole nested collection with a constant
//   (testEqualAnyRealmList, testEqualAnyRealmDictionary: `anyCol == .list(...)`), which Atoll's
//   query arguments cannot carry. The subscripts into nested collections (`[0]`, `["key"]`,
//   `.any`: testNestedAnyRealmList, testNestedAnyRealmDictionary) are ported.
// - `setCol` / `mapCol` (sets and maps of objects) and testMapSubscriptObject, which is an
//   assertThrows case (Atoll stops the program for the misuse, like the other assertThrows).
// - The statements on ModernCollectionsOfEnums and the custom-persistable wrappers, as in
//   QueryTests.swift.
// The collection-aggregate tests (testCollectionAggregates*) run on realm-swift's linked fixture
// rebuilt for this model (LinkToModernSetMapMixedObject).

import Atoll
import Foundation
import Testing

/// realm-swift's ModernAllTypesObject, only its Decimal128, AnyRealmValue, MutableSet and Map properties.
class ModernSetMapMixedObject: Object {
    @Persisted(primaryKey: true) var pk: ObjectId
    @Persisted var decimalCol: Decimal128
    @Persisted var anyCol: AnyRealmValue
    @Persisted var optDecimalCol: Decimal128?
    @Persisted var arrayDecimal: List<Decimal128>
    @Persisted var arrayAny: List<AnyRealmValue>
    @Persisted var arrayOptDecimal: List<Decimal128?>
    @Persisted var setBool: MutableSet<Bool>
    @Persisted var setInt: MutableSet<Int>
    @Persisted var setInt8: MutableSet<Int8>
    @Persisted var setInt16: MutableSet<Int16>
    @Persisted var setInt32: MutableSet<Int32>
    @Persisted var setInt64: MutableSet<Int64>
    @Persisted var setFloat: MutableSet<Float>
    @Persisted var setDouble: MutableSet<Double>
    @Persisted var setString: MutableSet<String>
    @Persisted var setBinary: MutableSet<Data>
    @Persisted var setDate: MutableSet<Date>
    @Persisted var setDecimal: MutableSet<Decimal128>
    @Persisted var setObjectId: MutableSet<ObjectId>
    @Persisted var setAny: MutableSet<AnyRealmValue>
    @Persisted var setUuid: MutableSet<UUID>
    @Persisted var setOptBool: MutableSet<Bool?>
    @Persisted var setOptInt: MutableSet<Int?>
    @Persisted var setOptInt8: MutableSet<Int8?>
    @Persisted var setOptInt16: MutableSet<Int16?>
    @Persisted var setOptInt32: MutableSet<Int32?>
    @Persisted var setOptInt64: MutableSet<Int64?>
    @Persisted var setOptFloat: MutableSet<Float?>
    @Persisted var setOptDouble: MutableSet<Double?>
    @Persisted var setOptString: MutableSet<String?>
    @Persisted var setOptBinary: MutableSet<Data?>
    @Persisted var setOptDate: MutableSet<Date?>
    @Persisted var setOptDecimal: MutableSet<Decimal128?>
    @Persisted var setOptObjectId: MutableSet<ObjectId?>
    @Persisted var setOptUuid: MutableSet<UUID?>
    @Persisted var mapBool: Map<String, Bool>
    @Persisted var mapInt: Map<String, Int>
    @Persisted var mapInt8: Map<String, Int8>
    @Persisted var mapInt16: Map<String, Int16>
    @Persisted var mapInt32: Map<String, Int32>
    @Persisted var mapInt64: Map<String, Int64>
    @Persisted var mapFloat: Map<String, Float>
    @Persisted var mapDouble: Map<String, Double>
    @Persisted var mapString: Map<String, String>
    @Persisted var mapBinary: Map<String, Data>
    @Persisted var mapDate: Map<String, Date>
    @Persisted var mapDecimal: Map<String, Decimal128>
    @Persisted var mapObjectId: Map<String, ObjectId>
    @Persisted var mapAny: Map<String, AnyRealmValue>
    @Persisted var mapUuid: Map<String, UUID>
    @Persisted var mapOptBool: Map<String, Bool?>
    @Persisted var mapOptInt: Map<String, Int?>
    @Persisted var mapOptInt8: Map<String, Int8?>
    @Persisted var mapOptInt16: Map<String, Int16?>
    @Persisted var mapOptInt32: Map<String, Int32?>
    @Persisted var mapOptInt64: Map<String, Int64?>
    @Persisted var mapOptFloat: Map<String, Float?>
    @Persisted var mapOptDouble: Map<String, Double?>
    @Persisted var mapOptString: Map<String, String?>
    @Persisted var mapOptBinary: Map<String, Data?>
    @Persisted var mapOptDate: Map<String, Date?>
    @Persisted var mapOptDecimal: Map<String, Decimal128?>
    @Persisted var mapOptObjectId: Map<String, ObjectId?>
    @Persisted var mapOptUuid: Map<String, UUID?>
}

/// realm-swift's LinkToModernAllTypesObject, for ModernSetMapMixedObject.
class LinkToModernSetMapMixedObject: Object {
    @Persisted var object: ModernSetMapMixedObject?
    @Persisted var list: List<ModernSetMapMixedObject>
}

@Suite struct QuerySetMapMixedTests {
    let t = RealmTestCase()
    let realm: Realm

    init() throws {
        realm = try t.inMemoryRealm("QuerySetMapMixedTests")
        try realm.write {
            let objModernSetMapMixedObject = ModernSetMapMixedObject()

            objModernSetMapMixedObject.decimalCol = Decimal128(234.567)
            objModernSetMapMixedObject.optDecimalCol = Decimal128(234.567)
            objModernSetMapMixedObject.arrayDecimal.append(objectsIn: [Decimal128(123.456), Decimal128(234.567)])
            objModernSetMapMixedObject.arrayAny.append(objectsIn: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])
            objModernSetMapMixedObject.arrayOptDecimal.append(objectsIn: [Decimal128(123.456), Decimal128(234.567)])
            objModernSetMapMixedObject.setBool.insert(objectsIn: [true, true])
            objModernSetMapMixedObject.setInt.insert(objectsIn: [1, 3])
            objModernSetMapMixedObject.setInt8.insert(objectsIn: [Int8(8), Int8(9)])
            objModernSetMapMixedObject.setInt16.insert(objectsIn: [Int16(16), Int16(17)])
            objModernSetMapMixedObject.setInt32.insert(objectsIn: [Int32(32), Int32(33)])
            objModernSetMapMixedObject.setInt64.insert(objectsIn: [Int64(64), Int64(65)])
            objModernSetMapMixedObject.setFloat.insert(objectsIn: [Float(5.55444333), Float(6.55444333)])
            objModernSetMapMixedObject.setDouble.insert(objectsIn: [123.456, 234.567])
            objModernSetMapMixedObject.setString.insert(objectsIn: ["Foo", "Foó"])
            objModernSetMapMixedObject.setBinary.insert(objectsIn: [Data(count: 64), Data(count: 128)])
            objModernSetMapMixedObject.setDate.insert(objectsIn: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])
            objModernSetMapMixedObject.setDecimal.insert(objectsIn: [Decimal128(123.456), Decimal128(234.567)])
            objModernSetMapMixedObject.setObjectId.insert(objectsIn: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])
            objModernSetMapMixedObject.setUuid.insert(objectsIn: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])
            objModernSetMapMixedObject.setAny.insert(objectsIn: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])
            objModernSetMapMixedObject.setOptBool.insert(objectsIn: [true, true])
            objModernSetMapMixedObject.setOptInt.insert(objectsIn: [1, 3])
            objModernSetMapMixedObject.setOptInt8.insert(objectsIn: [Int8(8), Int8(9)])
            objModernSetMapMixedObject.setOptInt16.insert(objectsIn: [Int16(16), Int16(17)])
            objModernSetMapMixedObject.setOptInt32.insert(objectsIn: [Int32(32), Int32(33)])
            objModernSetMapMixedObject.setOptInt64.insert(objectsIn: [Int64(64), Int64(65)])
            objModernSetMapMixedObject.setOptFloat.insert(objectsIn: [Float(5.55444333), Float(6.55444333)])
            objModernSetMapMixedObject.setOptDouble.insert(objectsIn: [123.456, 234.567])
            objModernSetMapMixedObject.setOptString.insert(objectsIn: ["Foo", "Foó"])
            objModernSetMapMixedObject.setOptBinary.insert(objectsIn: [Data(count: 64), Data(count: 128)])
            objModernSetMapMixedObject.setOptDate.insert(objectsIn: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])
            objModernSetMapMixedObject.setOptDecimal.insert(objectsIn: [Decimal128(123.456), Decimal128(234.567)])
            objModernSetMapMixedObject.setOptObjectId.insert(objectsIn: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])
            objModernSetMapMixedObject.setOptUuid.insert(objectsIn: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])
            objModernSetMapMixedObject.mapBool["foo"] = true
            objModernSetMapMixedObject.mapBool["bar"] = true
            objModernSetMapMixedObject.mapInt["foo"] = 1
            objModernSetMapMixedObject.mapInt["bar"] = 3
            objModernSetMapMixedObject.mapInt8["foo"] = Int8(8)
            objModernSetMapMixedObject.mapInt8["bar"] = Int8(9)
            objModernSetMapMixedObject.mapInt16["foo"] = Int16(16)
            objModernSetMapMixedObject.mapInt16["bar"] = Int16(17)
            objModernSetMapMixedObject.mapInt32["foo"] = Int32(32)
            objModernSetMapMixedObject.mapInt32["bar"] = Int32(33)
            objModernSetMapMixedObject.mapInt64["foo"] = Int64(64)
            objModernSetMapMixedObject.mapInt64["bar"] = Int64(65)
            objModernSetMapMixedObject.mapFloat["foo"] = Float(5.55444333)
            objModernSetMapMixedObject.mapFloat["bar"] = Float(6.55444333)
            objModernSetMapMixedObject.mapDouble["foo"] = 123.456
            objModernSetMapMixedObject.mapDouble["bar"] = 234.567
            objModernSetMapMixedObject.mapString["foo"] = "Foo"
            objModernSetMapMixedObject.mapString["bar"] = "Foó"
            objModernSetMapMixedObject.mapBinary["foo"] = Data(count: 64)
            objModernSetMapMixedObject.mapBinary["bar"] = Data(count: 128)
            objModernSetMapMixedObject.mapDate["foo"] = Date(timeIntervalSince1970: 1000000)
            objModernSetMapMixedObject.mapDate["bar"] = Date(timeIntervalSince1970: 2000000)
            objModernSetMapMixedObject.mapDecimal["foo"] = Decimal128(123.456)
            objModernSetMapMixedObject.mapDecimal["bar"] = Decimal128(234.567)
            objModernSetMapMixedObject.mapObjectId["foo"] = oid("61184062c1d8f096a3695046")
            objModernSetMapMixedObject.mapObjectId["bar"] = oid("61184062c1d8f096a3695045")
            objModernSetMapMixedObject.mapUuid["foo"] = UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!
            objModernSetMapMixedObject.mapUuid["bar"] = UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!
            objModernSetMapMixedObject.mapAny["foo"] = AnyRealmValue.objectId(oid("61184062c1d8f096a3695046"))
            objModernSetMapMixedObject.mapAny["bar"] = AnyRealmValue.string("Hello")
            objModernSetMapMixedObject.mapOptBool["foo"] = true
            objModernSetMapMixedObject.mapOptBool["bar"] = true
            objModernSetMapMixedObject.mapOptInt["foo"] = 1
            objModernSetMapMixedObject.mapOptInt["bar"] = 3
            objModernSetMapMixedObject.mapOptInt8["foo"] = Int8(8)
            objModernSetMapMixedObject.mapOptInt8["bar"] = Int8(9)
            objModernSetMapMixedObject.mapOptInt16["foo"] = Int16(16)
            objModernSetMapMixedObject.mapOptInt16["bar"] = Int16(17)
            objModernSetMapMixedObject.mapOptInt32["foo"] = Int32(32)
            objModernSetMapMixedObject.mapOptInt32["bar"] = Int32(33)
            objModernSetMapMixedObject.mapOptInt64["foo"] = Int64(64)
            objModernSetMapMixedObject.mapOptInt64["bar"] = Int64(65)
            objModernSetMapMixedObject.mapOptFloat["foo"] = Float(5.55444333)
            objModernSetMapMixedObject.mapOptFloat["bar"] = Float(6.55444333)
            objModernSetMapMixedObject.mapOptDouble["foo"] = 123.456
            objModernSetMapMixedObject.mapOptDouble["bar"] = 234.567
            objModernSetMapMixedObject.mapOptString["foo"] = "Foo"
            objModernSetMapMixedObject.mapOptString["bar"] = "Foó"
            objModernSetMapMixedObject.mapOptBinary["foo"] = Data(count: 64)
            objModernSetMapMixedObject.mapOptBinary["bar"] = Data(count: 128)
            objModernSetMapMixedObject.mapOptDate["foo"] = Date(timeIntervalSince1970: 1000000)
            objModernSetMapMixedObject.mapOptDate["bar"] = Date(timeIntervalSince1970: 2000000)
            objModernSetMapMixedObject.mapOptDecimal["foo"] = Decimal128(123.456)
            objModernSetMapMixedObject.mapOptDecimal["bar"] = Decimal128(234.567)
            objModernSetMapMixedObject.mapOptObjectId["foo"] = oid("61184062c1d8f096a3695046")
            objModernSetMapMixedObject.mapOptObjectId["bar"] = oid("61184062c1d8f096a3695045")
            objModernSetMapMixedObject.mapOptUuid["foo"] = UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!
            objModernSetMapMixedObject.mapOptUuid["bar"] = UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!

            realm.add(objModernSetMapMixedObject)
        }
    }

    private func objects() -> Results<ModernSetMapMixedObject> {
        realm.objects(ModernSetMapMixedObject.self)
    }

    private func setAnyRealmValueCol(with value: AnyRealmValue, object: ModernSetMapMixedObject) {
        try! realm.write {
            object.anyCol = value
        }
    }

    // MARK: - Assertion helpers (as in QueryTests.swift)

    private func assertCount<T: Object>(_ expectedCount: Int,
                                        sourceLocation: SourceLocation = #_sourceLocation,
                                        _ query: ((Query<T>) -> Query<Bool>)) {
        let results = realm.objects(T.self).where(query)
        #expect(results.count == expectedCount, sourceLocation: sourceLocation)
    }

    private func assertPredicate<T: Object>(
            _ predicate: String, _ values: [Any],
            sourceLocation: SourceLocation = #_sourceLocation,
            _ query: ((Query<T>) -> Query<Bool>)) {
        let (queryStr, constructedValues) = query(Query<T>._constructForTesting())._constructPredicate()
        #expect(queryStr == predicate, sourceLocation: sourceLocation)
        #expect(constructedValues.count == values.count, sourceLocation: sourceLocation)
        let typed = Array(realm.objects(T.self).where(query))
        let string = Array(stringFiltered(realm.objects(T.self), predicate, values))
        #expect(typed.count == string.count && zip(typed, string).allSatisfy { $0.isSameObject(as: $1) },
                "the string form \(predicate) selects other objects", sourceLocation: sourceLocation)
    }

    private func assertQuery(_ predicate: String, _ value: Any,
                             count expectedCount: Int,
                             sourceLocation: SourceLocation = #_sourceLocation,
                             _ query: ((Query<ModernSetMapMixedObject>) -> Query<Bool>)) {
        assertCount(expectedCount, sourceLocation: sourceLocation, query)
        assertPredicate(predicate, [value], sourceLocation: sourceLocation, query)
    }

    private func assertQuery<T: Object>(_ type: T.Type,
                             _ predicate: String, _ value: Any,
                             count expectedCount: Int,
                             sourceLocation: SourceLocation = #_sourceLocation,
                             _ query: ((Query<T>) -> Query<Bool>)) {
        assertCount(expectedCount, sourceLocation: sourceLocation, query)
        assertPredicate(predicate, [value], sourceLocation: sourceLocation, query)
    }

    private func assertQuery(_ predicate: String, values: [Any] = [],
                             count expectedCount: Int,
                             sourceLocation: SourceLocation = #_sourceLocation,
                             _ query: ((Query<ModernSetMapMixedObject>) -> Query<Bool>)) {
        assertCount(expectedCount, sourceLocation: sourceLocation, query)
        assertPredicate(predicate, values, sourceLocation: sourceLocation, query)
    }

    private func assertQuery<T: Object>(_ type: T.Type, _ predicate: String,
                                        values: [Any] = [],
                                        count expectedCount: Int,
                                        sourceLocation: SourceLocation = #_sourceLocation,
                                        _ query: ((Query<T>) -> Query<Bool>)) {
        assertCount(expectedCount, sourceLocation: sourceLocation, query)
        assertPredicate(predicate, values, sourceLocation: sourceLocation, query)
    }

    func validateEquals<Root: Object, T>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>, _ value: T,
            equalCount: Int = 1, notEqualCount: Int = 0) {
        assertQuery(Root.self, "(\(name) == %@)", value, count: equalCount) {
            lhs($0) == value
        }
        assertQuery(Root.self, "(\(name) != %@)", value, count: notEqualCount) {
            lhs($0) != value
        }
    }

    func validateEqualsNil<Root: Object, T: ExpressibleByNilLiteral>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>) {
        assertQuery(Root.self, "(\(name) == %@)", NSNull(), count: 0) {
            lhs($0) == nil
        }
        assertQuery(Root.self, "(\(name) != %@)", NSNull(), count: 1) {
            lhs($0) != nil
        }
    }

    func validateNumericComparisons<Root: Object, T>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>,
            _ value: T, count: Int = 1, ltCount: Int = 0, gtCount: Int = 0) where T: _QueryNumeric {
        assertQuery(Root.self, "(\(name) > %@)", value, count: gtCount) {
            lhs($0) > value
        }
        assertQuery(Root.self, "(\(name) >= %@)", value, count: count) {
            lhs($0) >= value
        }
        assertQuery(Root.self, "(\(name) < %@)", value, count: ltCount) {
            lhs($0) < value
        }
        assertQuery(Root.self, "(\(name) <= %@)", value, count: count) {
            lhs($0) <= value
        }
    }

    private func validateNumericContains<Root: Object, T: SetMapQueryValue & Comparable>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>) {
        let values = T.setMapQueryValues()
        assertQuery(Root.self, "((\(name) >= %@) && (\(name) < %@))", values: [values[0], values[2]], count: 1) {
            lhs($0).contains(values[0]..<values[2])
        }
        assertQuery(Root.self, "((\(name) >= %@) && (\(name) < %@))", values: [values[0], values[1]], count: 0) {
            lhs($0).contains(values[0]..<values[1])
        }
        assertQuery(Root.self, "(\(name) BETWEEN {%@, %@})", values: [values[0], values[2]], count: 1) {
            lhs($0).contains(values[0]...values[2])
        }
        assertQuery(Root.self, "(\(name) BETWEEN {%@, %@})", values: [values[0], values[1]], count: 1) {
            lhs($0).contains(values[0]...values[1])
        }
    }

    private func validateNumericContains<Root: Object, T: _QueryOptional>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>) where T.Wrapped: Comparable & SetMapQueryValue {
        let values = T.Wrapped.setMapQueryValues()
        assertQuery(Root.self, "((\(name) >= %@) && (\(name) < %@))", values: [values[0], values[2]], count: 1) {
            lhs($0).contains(values[0]..<values[2])
        }
        assertQuery(Root.self, "((\(name) >= %@) && (\(name) < %@))", values: [values[0], values[1]], count: 0) {
            lhs($0).contains(values[0]..<values[1])
        }
        assertQuery(Root.self, "(\(name) BETWEEN {%@, %@})", values: [values[0], values[2]], count: 1) {
            lhs($0).contains(values[0]...values[2])
        }
        assertQuery(Root.self, "(\(name) BETWEEN {%@, %@})", values: [values[0], values[1]], count: 1) {
            lhs($0).contains(values[0]...values[1])
        }
    }

    private func validateStringOperations<Root: Object, T>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>,
            _ values: (T, T, T), count: (Bool, StringOptions) -> Int)
            where T: _QueryString {
        let (full, prefix, suffix) = values
        for (modifier, options) in stringModifiers {
            let matchingCount = count(true, options)
            let notMatchingCount = count(false, options)
            assertQuery(Root.self, "(\(name) ==\(modifier) %@)", full, count: matchingCount) {
                lhs($0).equals(full, options: [options])
            }
            assertQuery(Root.self, "(NOT \(name) ==\(modifier) %@)", full, count: 1 - matchingCount) {
                !lhs($0).equals(full, options: [options])
            }
            assertQuery(Root.self, "(\(name) !=\(modifier) %@)", full, count: notMatchingCount) {
                lhs($0).notEquals(full, options: [options])
            }
            assertQuery(Root.self, "(NOT \(name) !=\(modifier) %@)", full, count: 1 - notMatchingCount) {
                !lhs($0).notEquals(full, options: [options])
            }

            assertQuery(Root.self, "(\(name) CONTAINS\(modifier) %@)", full, count: matchingCount) {
                lhs($0).contains(full, options: [options])
            }
            assertQuery(Root.self, "(NOT \(name) CONTAINS\(modifier) %@)", full, count: 1 - matchingCount) {
                !lhs($0).contains(full, options: [options])
            }

            assertQuery(Root.self, "(\(name) BEGINSWITH\(modifier) %@)", prefix, count: matchingCount) {
                lhs($0).starts(with: prefix, options: [options])
            }
            assertQuery(Root.self, "(NOT \(name) BEGINSWITH\(modifier) %@)", prefix, count: 1 - matchingCount) {
                !lhs($0).starts(with: prefix, options: [options])
            }

            assertQuery(Root.self, "(\(name) ENDSWITH\(modifier) %@)", suffix, count: matchingCount) {
                lhs($0).ends(with: suffix, options: [options])
            }
            assertQuery(Root.self, "(NOT \(name) ENDSWITH\(modifier) %@)", suffix, count: 1 - matchingCount) {
                !lhs($0).ends(with: suffix, options: [options])
            }
        }
    }

    private func validateCollectionContains<Root: Object, T: _QueryCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>)
            where T.Element: SetMapQueryValue {
        let values = T.Element.setMapQueryValues()

        assertQuery(Root.self, "(%@ IN \(name))", values[0], count: 1) {
            lhs($0).contains(values[0])
        }
        assertQuery(Root.self, "(%@ IN \(name))", values[2], count: 0) {
            lhs($0).contains(values[2])
        }

        assertQuery(Root.self, "(NOT %@ IN \(name))", values[0], count: 0) {
            !lhs($0).contains(values[0])
        }
        assertQuery(Root.self, "(NOT %@ IN \(name))", values[2], count: 1) {
            !lhs($0).contains(values[2])
        }
    }

    private func validateCollectionContainsNil<Root: Object, T: _QueryCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>)
            where T.Element: SetMapQueryValue & ExpressibleByNilLiteral {
        assertQuery(Root.self, "(%@ IN \(name))", NSNull(), count: 0) {
            lhs($0).contains(nil)
        }
        assertQuery(Root.self, "(NOT %@ IN \(name))", NSNull(), count: 1) {
            !lhs($0).contains(nil)
        }
    }

    let stringModifiers: [(String, StringOptions)] = [
        ("", []),
        ("[c]", [.caseInsensitive]),
        ("[d]", [.diacriticInsensitive]),
        ("[cd]", [.caseInsensitive, .diacriticInsensitive]),
    ]

    private func validateCollectionContains<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>)
            where T.Value: SetMapQueryValue {
        let values = T.Value.setMapQueryValues()

        assertQuery(Root.self, "(%@ IN \(name))", values[0], count: 1) {
            lhs($0).contains(values[0])
        }
        assertQuery(Root.self, "(%@ IN \(name))", values[2], count: 0) {
            lhs($0).contains(values[2])
        }

        assertQuery(Root.self, "(NOT %@ IN \(name))", values[0], count: 0) {
            !lhs($0).contains(values[0])
        }
        assertQuery(Root.self, "(NOT %@ IN \(name))", values[2], count: 1) {
            !lhs($0).contains(values[2])
        }
    }

    private func validateCollectionContainsNil<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>)
            where T.Value: SetMapQueryValue & ExpressibleByNilLiteral {
        assertQuery(Root.self, "(%@ IN \(name))", NSNull(), count: 0) {
            lhs($0).contains(nil)
        }
        assertQuery(Root.self, "(NOT %@ IN \(name))", NSNull(), count: 1) {
            !lhs($0).contains(nil)
        }
    }

    private func validateAllKeys<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>)
            where T.Key == String {
        assertQuery(Root.self, "(ANY \(name).@allKeys == %@)", "foo", count: 1) {
            lhs($0).keys == "foo"
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys != %@)", "foo", count: 1) {
            lhs($0).keys != "foo"
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys CONTAINS[cd] %@)", "foo", count: 1) {
            lhs($0).keys.contains("foo", options: [.caseInsensitive, .diacriticInsensitive])
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys CONTAINS %@)", "foo", count: 1) {
            lhs($0).keys.contains("foo")
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys BEGINSWITH[cd] %@)", "foo", count: 1) {
            lhs($0).keys.starts(with: "foo", options: [.caseInsensitive, .diacriticInsensitive])
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys BEGINSWITH %@)", "foo", count: 1) {
            lhs($0).keys.starts(with: "foo")
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys ENDSWITH[cd] %@)", "foo", count: 1) {
            lhs($0).keys.ends(with: "foo", options: [.caseInsensitive, .diacriticInsensitive])
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys ENDSWITH %@)", "foo", count: 1) {
            lhs($0).keys.ends(with: "foo")
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys LIKE[c] %@)", "foo", count: 1) {
            lhs($0).keys.like("foo", caseInsensitive: true)
        }

        assertQuery(Root.self, "(ANY \(name).@allKeys LIKE %@)", "foo", count: 1) {
            lhs($0).keys.like("foo")
        }
    }

    private func validateMapSubscriptEquality<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>, value: T.Value)
            where T.Key == String {
        assertQuery(Root.self, "(\(name)[%@] == %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"] == value
        }
        assertQuery(Root.self, "(\(name)[%@] != %@)", values: ["foo", value], count: 0) {
            lhs($0)["foo"] != value
        }
    }

    private func validateMapSubscriptNumericComparisons<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>, value: T.Value)
            where T.Value: _QueryNumeric, T.Key == String {
        assertQuery(Root.self, "(\(name)[%@] > %@)", values: ["foo", value], count: 0) {
            lhs($0)["foo"] > value
        }
        assertQuery(Root.self, "(\(name)[%@] >= %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"] >= value
        }
        assertQuery(Root.self, "(\(name)[%@] < %@)", values: ["foo", value], count: 0) {
            lhs($0)["foo"] < value
        }
        assertQuery(Root.self, "(\(name)[%@] <= %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"] <= value
        }
    }

    private func validateMapSubscriptStringComparisons<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>, value: T.Value)
            where T.Value: _QueryString, T.Key == String {
        assertQuery(Root.self, "(\(name)[%@] CONTAINS[cd] %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].contains(value, options: [.caseInsensitive, .diacriticInsensitive])
        }

        assertQuery(Root.self, "(\(name)[%@] CONTAINS %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].contains(value)
        }

        assertQuery(Root.self, "(NOT \(name)[%@] CONTAINS %@)", values: ["foo", value], count: 0) {
            !lhs($0)["foo"].contains(value)
        }

        assertQuery(Root.self, "(\(name)[%@] BEGINSWITH[cd] %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].starts(with: value, options: [.caseInsensitive, .diacriticInsensitive])
        }

        assertQuery(Root.self, "(\(name)[%@] BEGINSWITH %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].starts(with: value)
        }

        assertQuery(Root.self, "(\(name)[%@] ENDSWITH[cd] %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].ends(with: value, options: [.caseInsensitive, .diacriticInsensitive])
        }

        assertQuery(Root.self, "(\(name)[%@] ENDSWITH %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].ends(with: value)
        }

        assertQuery(Root.self, "(\(name)[%@] LIKE[c] %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].like(value, caseInsensitive: true)
        }

        assertQuery(Root.self, "(\(name)[%@] LIKE %@)", values: ["foo", value], count: 1) {
            lhs($0)["foo"].like(value)
        }
    }

    /// realm-swift's initLinkedCollectionAggregatesObject for this model: one object whose
    /// collections hold the three query values of their type, linked from a
    /// LinkToModernSetMapMixedObject.
    private func initLinkedCollectionAggregatesObject() {
        realm.beginWrite()
        realm.deleteAll()
        let object = ModernSetMapMixedObject()
        object.arrayDecimal.append(objectsIn: Decimal128.setMapQueryValues())
        object.arrayAny.append(objectsIn: AnyRealmValue.setMapQueryValues())
        object.arrayOptDecimal.append(objectsIn: Decimal128?.setMapQueryValues())
        object.setBool.insert(objectsIn: Bool.setMapQueryValues())
        object.setInt.insert(objectsIn: Int.setMapQueryValues())
        object.setInt8.insert(objectsIn: Int8.setMapQueryValues())
        object.setInt16.insert(objectsIn: Int16.setMapQueryValues())
        object.setInt32.insert(objectsIn: Int32.setMapQueryValues())
        object.setInt64.insert(objectsIn: Int64.setMapQueryValues())
        object.setFloat.insert(objectsIn: Float.setMapQueryValues())
        object.setDouble.insert(objectsIn: Double.setMapQueryValues())
        object.setString.insert(objectsIn: String.setMapQueryValues())
        object.setBinary.insert(objectsIn: Data.setMapQueryValues())
        object.setDate.insert(objectsIn: Date.setMapQueryValues())
        object.setDecimal.insert(objectsIn: Decimal128.setMapQueryValues())
        object.setObjectId.insert(objectsIn: ObjectId.setMapQueryValues())
        object.setAny.insert(objectsIn: AnyRealmValue.setMapQueryValues())
        object.setUuid.insert(objectsIn: UUID.setMapQueryValues())
        object.setOptBool.insert(objectsIn: Bool?.setMapQueryValues())
        object.setOptInt.insert(objectsIn: Int?.setMapQueryValues())
        object.setOptInt8.insert(objectsIn: Int8?.setMapQueryValues())
        object.setOptInt16.insert(objectsIn: Int16?.setMapQueryValues())
        object.setOptInt32.insert(objectsIn: Int32?.setMapQueryValues())
        object.setOptInt64.insert(objectsIn: Int64?.setMapQueryValues())
        object.setOptFloat.insert(objectsIn: Float?.setMapQueryValues())
        object.setOptDouble.insert(objectsIn: Double?.setMapQueryValues())
        object.setOptString.insert(objectsIn: String?.setMapQueryValues())
        object.setOptBinary.insert(objectsIn: Data?.setMapQueryValues())
        object.setOptDate.insert(objectsIn: Date?.setMapQueryValues())
        object.setOptDecimal.insert(objectsIn: Decimal128?.setMapQueryValues())
        object.setOptObjectId.insert(objectsIn: ObjectId?.setMapQueryValues())
        object.setOptUuid.insert(objectsIn: UUID?.setMapQueryValues())
        populateMap(object.mapBool)
        populateMap(object.mapInt)
        populateMap(object.mapInt8)
        populateMap(object.mapInt16)
        populateMap(object.mapInt32)
        populateMap(object.mapInt64)
        populateMap(object.mapFloat)
        populateMap(object.mapDouble)
        populateMap(object.mapString)
        populateMap(object.mapBinary)
        populateMap(object.mapDate)
        populateMap(object.mapDecimal)
        populateMap(object.mapObjectId)
        populateMap(object.mapAny)
        populateMap(object.mapUuid)
        populateMap(object.mapOptBool)
        populateMap(object.mapOptInt)
        populateMap(object.mapOptInt8)
        populateMap(object.mapOptInt16)
        populateMap(object.mapOptInt32)
        populateMap(object.mapOptInt64)
        populateMap(object.mapOptFloat)
        populateMap(object.mapOptDouble)
        populateMap(object.mapOptString)
        populateMap(object.mapOptBinary)
        populateMap(object.mapOptDate)
        populateMap(object.mapOptDecimal)
        populateMap(object.mapOptObjectId)
        populateMap(object.mapOptUuid)
        let parent = realm.create(LinkToModernSetMapMixedObject.self)
        parent["object"] = object
        try! realm.commitWrite()
    }

    private func populateMap<T: SetMapQueryValue & RealmCollectionValue>(_ map: Map<String, T>) {
        let values = T.setMapQueryValues()
        map["foo"] = values[2]
        map["bar"] = values[1]
        map["baz"] = values[0]
    }

    private func validateAverage<Root: Object, T: _QueryCollection>(_ name: String, _ average: T.Element, _ min: T.Element, _ lhs: (Query<Root>) -> Query<T>)
            where T.Element: _QueryNumeric, T.Element: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@avg == %@)", average, count: 1) {
            lhs($0).avg == average
        }
        assertQuery(Root.self, "(object.\(name).@avg == %@)", min, count: 0) {
            lhs($0).avg == min
        }
        assertQuery(Root.self, "(object.\(name).@avg != %@)", average, count: 0) {
            lhs($0).avg != average
        }
        assertQuery(Root.self, "(object.\(name).@avg != %@)", min, count: 1) {
            lhs($0).avg != min
        }
        assertQuery(Root.self, "(object.\(name).@avg > %@)", average, count: 0) {
            lhs($0).avg > average
        }
        assertQuery(Root.self, "(object.\(name).@avg > %@)", min, count: 1) {
            lhs($0).avg > min
        }
        assertQuery(Root.self, "(object.\(name).@avg < %@)", average, count: 0) {
            lhs($0).avg < average
        }
        assertQuery(Root.self, "(object.\(name).@avg >= %@)", average, count: 1) {
            lhs($0).avg >= average
        }
        assertQuery(Root.self, "(object.\(name).@avg <= %@)", average, count: 1) {
            lhs($0).avg <= average
        }
    }

    private func validateAverage<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ average: T.Value, _ min: T.Value, _ lhs: (Query<Root>) -> Query<T>)
            where T.Value: _QueryNumeric, T.Value: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@avg == %@)", average, count: 1) {
            lhs($0).avg == average
        }
        assertQuery(Root.self, "(object.\(name).@avg == %@)", min, count: 0) {
            lhs($0).avg == min
        }
        assertQuery(Root.self, "(object.\(name).@avg != %@)", average, count: 0) {
            lhs($0).avg != average
        }
        assertQuery(Root.self, "(object.\(name).@avg != %@)", min, count: 1) {
            lhs($0).avg != min
        }
        assertQuery(Root.self, "(object.\(name).@avg > %@)", average, count: 0) {
            lhs($0).avg > average
        }
        assertQuery(Root.self, "(object.\(name).@avg > %@)", min, count: 1) {
            lhs($0).avg > min
        }
        assertQuery(Root.self, "(object.\(name).@avg < %@)", average, count: 0) {
            lhs($0).avg < average
        }
        assertQuery(Root.self, "(object.\(name).@avg >= %@)", average, count: 1) {
            lhs($0).avg >= average
        }
        assertQuery(Root.self, "(object.\(name).@avg <= %@)", average, count: 1) {
            lhs($0).avg <= average
        }
    }

    private func validateSum<Root: Object, T: _QueryCollection>(_ name: String, _ sum: T.Element, _ min: T.Element, _ lhs: (Query<Root>) -> Query<T>)
            where T.Element: _QueryNumeric, T.Element: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@sum == %@)", sum, count: 1) {
            lhs($0).sum == sum
        }
        assertQuery(Root.self, "(object.\(name).@sum == %@)", min, count: 0) {
            lhs($0).sum == min
        }
        assertQuery(Root.self, "(object.\(name).@sum != %@)", sum, count: 0) {
            lhs($0).sum != sum
        }
        assertQuery(Root.self, "(object.\(name).@sum != %@)", min, count: 1) {
            lhs($0).sum != min
        }
        assertQuery(Root.self, "(object.\(name).@sum > %@)", sum, count: 0) {
            lhs($0).sum > sum
        }
        assertQuery(Root.self, "(object.\(name).@sum > %@)", min, count: 1) {
            lhs($0).sum > min
        }
        assertQuery(Root.self, "(object.\(name).@sum < %@)", sum, count: 0) {
            lhs($0).sum < sum
        }
        assertQuery(Root.self, "(object.\(name).@sum >= %@)", sum, count: 1) {
            lhs($0).sum >= sum
        }
        assertQuery(Root.self, "(object.\(name).@sum <= %@)", sum, count: 1) {
            lhs($0).sum <= sum
        }
    }

    private func validateSum<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ sum: T.Value, _ min: T.Value, _ lhs: (Query<Root>) -> Query<T>)
            where T.Value: _QueryNumeric, T.Value: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@sum == %@)", sum, count: 1) {
            lhs($0).sum == sum
        }
        assertQuery(Root.self, "(object.\(name).@sum == %@)", min, count: 0) {
            lhs($0).sum == min
        }
        assertQuery(Root.self, "(object.\(name).@sum != %@)", sum, count: 0) {
            lhs($0).sum != sum
        }
        assertQuery(Root.self, "(object.\(name).@sum != %@)", min, count: 1) {
            lhs($0).sum != min
        }
        assertQuery(Root.self, "(object.\(name).@sum > %@)", sum, count: 0) {
            lhs($0).sum > sum
        }
        assertQuery(Root.self, "(object.\(name).@sum > %@)", min, count: 1) {
            lhs($0).sum > min
        }
        assertQuery(Root.self, "(object.\(name).@sum < %@)", sum, count: 0) {
            lhs($0).sum < sum
        }
        assertQuery(Root.self, "(object.\(name).@sum >= %@)", sum, count: 1) {
            lhs($0).sum >= sum
        }
        assertQuery(Root.self, "(object.\(name).@sum <= %@)", sum, count: 1) {
            lhs($0).sum <= sum
        }
    }

    private func validateMin<Root: Object, T: _QueryCollection>(_ name: String, min: T.Element, max: T.Element, _ lhs: (Query<Root>) -> Query<T>)
            where T.Element: _QueryNumeric, T.Element: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@min == %@)", min, count: 1) {
            lhs($0).min == min
        }
        assertQuery(Root.self, "(object.\(name).@min == %@)", max, count: 0) {
            lhs($0).min == max
        }
        assertQuery(Root.self, "(object.\(name).@min != %@)", min, count: 0) {
            lhs($0).min != min
        }
        assertQuery(Root.self, "(object.\(name).@min != %@)", max, count: 1) {
            lhs($0).min != max
        }
        assertQuery(Root.self, "(object.\(name).@min > %@)", min, count: 0) {
            lhs($0).min > min
        }
        assertQuery(Root.self, "(object.\(name).@min < %@)", min, count: 0) {
            lhs($0).min < min
        }
        assertQuery(Root.self, "(object.\(name).@min >= %@)", min, count: 1) {
            lhs($0).min >= min
        }
        assertQuery(Root.self, "(object.\(name).@min <= %@)", min, count: 1) {
            lhs($0).min <= min
        }
    }

    private func validateMin<Root: Object, T: _QueryKeyedCollection>(_ name: String, min: T.Value, max: T.Value, _ lhs: (Query<Root>) -> Query<T>)
            where T.Value: _QueryNumeric, T.Value: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@min == %@)", min, count: 1) {
            lhs($0).min == min
        }
        assertQuery(Root.self, "(object.\(name).@min == %@)", max, count: 0) {
            lhs($0).min == max
        }
        assertQuery(Root.self, "(object.\(name).@min != %@)", min, count: 0) {
            lhs($0).min != min
        }
        assertQuery(Root.self, "(object.\(name).@min != %@)", max, count: 1) {
            lhs($0).min != max
        }
        assertQuery(Root.self, "(object.\(name).@min > %@)", min, count: 0) {
            lhs($0).min > min
        }
        assertQuery(Root.self, "(object.\(name).@min < %@)", min, count: 0) {
            lhs($0).min < min
        }
        assertQuery(Root.self, "(object.\(name).@min >= %@)", min, count: 1) {
            lhs($0).min >= min
        }
        assertQuery(Root.self, "(object.\(name).@min <= %@)", min, count: 1) {
            lhs($0).min <= min
        }
    }

    private func validateMax<Root: Object, T: _QueryCollection>(_ name: String, min: T.Element, max: T.Element, _ lhs: (Query<Root>) -> Query<T>)
            where T.Element: _QueryNumeric, T.Element: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@max == %@)", max, count: 1) {
            lhs($0).max == max
        }
        assertQuery(Root.self, "(object.\(name).@max == %@)", min, count: 0) {
            lhs($0).max == min
        }
        assertQuery(Root.self, "(object.\(name).@max != %@)", max, count: 0) {
            lhs($0).max != max
        }
        assertQuery(Root.self, "(object.\(name).@max != %@)", min, count: 1) {
            lhs($0).max != min
        }
        assertQuery(Root.self, "(object.\(name).@max > %@)", max, count: 0) {
            lhs($0).max > max
        }
        assertQuery(Root.self, "(object.\(name).@max < %@)", max, count: 0) {
            lhs($0).max < max
        }
        assertQuery(Root.self, "(object.\(name).@max >= %@)", max, count: 1) {
            lhs($0).max >= max
        }
        assertQuery(Root.self, "(object.\(name).@max <= %@)", max, count: 1) {
            lhs($0).max <= max
        }
    }

    private func validateMax<Root: Object, T: _QueryKeyedCollection>(_ name: String, min: T.Value, max: T.Value, _ lhs: (Query<Root>) -> Query<T>)
            where T.Value: _QueryNumeric, T.Value: SetMapQueryValue {
        assertQuery(Root.self, "(object.\(name).@max == %@)", max, count: 1) {
            lhs($0).max == max
        }
        assertQuery(Root.self, "(object.\(name).@max == %@)", min, count: 0) {
            lhs($0).max == min
        }
        assertQuery(Root.self, "(object.\(name).@max != %@)", max, count: 0) {
            lhs($0).max != max
        }
        assertQuery(Root.self, "(object.\(name).@max != %@)", min, count: 1) {
            lhs($0).max != min
        }
        assertQuery(Root.self, "(object.\(name).@max > %@)", max, count: 0) {
            lhs($0).max > max
        }
        assertQuery(Root.self, "(object.\(name).@max < %@)", max, count: 0) {
            lhs($0).max < max
        }
        assertQuery(Root.self, "(object.\(name).@max >= %@)", max, count: 1) {
            lhs($0).max >= max
        }
        assertQuery(Root.self, "(object.\(name).@max <= %@)", max, count: 1) {
            lhs($0).max <= max
        }
    }

    private func validateCount<Root: Object, T: _QueryCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>) {
        assertQuery(Root.self, "(object.\(name).@count == %@)", 3, count: 1) {
            lhs($0).count == 3
        }
        assertQuery(Root.self, "(object.\(name).@count == %@)", 0, count: 0) {
            lhs($0).count == 0
        }
        assertQuery(Root.self, "(object.\(name).@count != %@)", 3, count: 0) {
            lhs($0).count != 3
        }
        assertQuery(Root.self, "(object.\(name).@count != %@)", 2, count: 1) {
            lhs($0).count != 2
        }
        assertQuery(Root.self, "(object.\(name).@count < %@)", 3, count: 0) {
            lhs($0).count < 3
        }
        assertQuery(Root.self, "(object.\(name).@count < %@)", 4, count: 1) {
            lhs($0).count < 4
        }
        assertQuery(Root.self, "(object.\(name).@count > %@)", 2, count: 1) {
            lhs($0).count > 2
        }
        assertQuery(Root.self, "(object.\(name).@count > %@)", 3, count: 0) {
            lhs($0).count > 3
        }
        assertQuery(Root.self, "(object.\(name).@count <= %@)", 2, count: 0) {
            lhs($0).count <= 2
        }
        assertQuery(Root.self, "(object.\(name).@count <= %@)", 3, count: 1) {
            lhs($0).count <= 3
        }
        assertQuery(Root.self, "(object.\(name).@count >= %@)", 3, count: 1) {
            lhs($0).count >= 3
        }
        assertQuery(Root.self, "(object.\(name).@count >= %@)", 4, count: 0) {
            lhs($0).count >= 4
        }
    }

    private func validateCount<Root: Object, T: _QueryKeyedCollection>(_ name: String, _ lhs: (Query<Root>) -> Query<T>) {
        assertQuery(Root.self, "(object.\(name).@count == %@)", 3, count: 1) {
            lhs($0).count == 3
        }
        assertQuery(Root.self, "(object.\(name).@count == %@)", 0, count: 0) {
            lhs($0).count == 0
        }
        assertQuery(Root.self, "(object.\(name).@count != %@)", 3, count: 0) {
            lhs($0).count != 3
        }
        assertQuery(Root.self, "(object.\(name).@count != %@)", 2, count: 1) {
            lhs($0).count != 2
        }
        assertQuery(Root.self, "(object.\(name).@count < %@)", 3, count: 0) {
            lhs($0).count < 3
        }
        assertQuery(Root.self, "(object.\(name).@count < %@)", 4, count: 1) {
            lhs($0).count < 4
        }
        assertQuery(Root.self, "(object.\(name).@count > %@)", 2, count: 1) {
            lhs($0).count > 2
        }
        assertQuery(Root.self, "(object.\(name).@count > %@)", 3, count: 0) {
            lhs($0).count > 3
        }
        assertQuery(Root.self, "(object.\(name).@count <= %@)", 2, count: 0) {
            lhs($0).count <= 2
        }
        assertQuery(Root.self, "(object.\(name).@count <= %@)", 3, count: 1) {
            lhs($0).count <= 3
        }
        assertQuery(Root.self, "(object.\(name).@count >= %@)", 3, count: 1) {
            lhs($0).count >= 3
        }
        assertQuery(Root.self, "(object.\(name).@count >= %@)", 4, count: 0) {
            lhs($0).count >= 4
        }
    }

    // MARK: - Tests

    @Test func testEquals() {
        validateEquals("decimalCol", \Query<ModernSetMapMixedObject>.decimalCol, Decimal128(234.567))
        validateEquals("optDecimalCol", \Query<ModernSetMapMixedObject>.optDecimalCol, Decimal128(234.567))
        validateEqualsNil("optDecimalCol", \Query<ModernSetMapMixedObject>.optDecimalCol)
    }

    @Test func testEqualAnyRealmValue() {
        let object = objects()[0]
        setAnyRealmValueCol(with: .none, object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.none, count: 1) {
            $0.anyCol == .none
        }
        setAnyRealmValueCol(with: .int(123), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.int(123), count: 1) {
            $0.anyCol == .int(123)
        }
        setAnyRealmValueCol(with: .bool(true), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.bool(true), count: 1) {
            $0.anyCol == .bool(true)
        }
        setAnyRealmValueCol(with: .float(123.456), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.float(123.456), count: 1) {
            $0.anyCol == .float(123.456)
        }
        setAnyRealmValueCol(with: .double(123.456), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.double(123.456), count: 1) {
            $0.anyCol == .double(123.456)
        }
        setAnyRealmValueCol(with: .string("FooBar"), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.string("FooBar"), count: 1) {
            $0.anyCol == .string("FooBar")
        }
        setAnyRealmValueCol(with: .data(Data(count: 64)), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.data(Data(count: 64)), count: 1) {
            $0.anyCol == .data(Data(count: 64))
        }
        setAnyRealmValueCol(with: .date(Date(timeIntervalSince1970: 1000000)), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.date(Date(timeIntervalSince1970: 1000000)), count: 1) {
            $0.anyCol == .date(Date(timeIntervalSince1970: 1000000))
        }
        setAnyRealmValueCol(with: .objectId(oid("61184062c1d8f096a3695046")), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), count: 1) {
            $0.anyCol == .objectId(oid("61184062c1d8f096a3695046"))
        }
        setAnyRealmValueCol(with: .decimal128(123.456), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.decimal128(123.456), count: 1) {
            $0.anyCol == .decimal128(123.456)
        }
        setAnyRealmValueCol(with: .uuid(UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), object: object)
        assertQuery("(anyCol == %@)", AnyRealmValue.uuid(UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), count: 1) {
            $0.anyCol == .uuid(UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!)
        }
    }

    @Test func testNotEqualAnyRealmValue() {
        let object = objects()[0]
        setAnyRealmValueCol(with: .none, object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.none, count: 0) {
            $0.anyCol != .none
        }
        setAnyRealmValueCol(with: .int(123), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.int(123), count: 0) {
            $0.anyCol != .int(123)
        }
        setAnyRealmValueCol(with: .bool(true), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.bool(true), count: 0) {
            $0.anyCol != .bool(true)
        }
        setAnyRealmValueCol(with: .float(123.456), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.float(123.456), count: 0) {
            $0.anyCol != .float(123.456)
        }
        setAnyRealmValueCol(with: .double(123.456), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.double(123.456), count: 0) {
            $0.anyCol != .double(123.456)
        }
        setAnyRealmValueCol(with: .string("FooBar"), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.string("FooBar"), count: 0) {
            $0.anyCol != .string("FooBar")
        }
        setAnyRealmValueCol(with: .data(Data(count: 64)), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.data(Data(count: 64)), count: 0) {
            $0.anyCol != .data(Data(count: 64))
        }
        setAnyRealmValueCol(with: .date(Date(timeIntervalSince1970: 1000000)), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.date(Date(timeIntervalSince1970: 1000000)), count: 0) {
            $0.anyCol != .date(Date(timeIntervalSince1970: 1000000))
        }
        setAnyRealmValueCol(with: .objectId(oid("61184062c1d8f096a3695046")), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), count: 0) {
            $0.anyCol != .objectId(oid("61184062c1d8f096a3695046"))
        }
        setAnyRealmValueCol(with: .decimal128(123.456), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.decimal128(123.456), count: 0) {
            $0.anyCol != .decimal128(123.456)
        }
        setAnyRealmValueCol(with: .uuid(UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), object: object)
        assertQuery("(anyCol != %@)", AnyRealmValue.uuid(UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), count: 0) {
            $0.anyCol != .uuid(UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!)
        }
    }

    @Test func testNestedAnyRealmList() {
        let object = objects()[0]
        let subArray2: AnyRealmValue = AnyRealmValue.fromArray([ .string("john"), .bool(false) ])
        let subArray3: AnyRealmValue = AnyRealmValue.fromArray([ subArray2, .double(76.54) ])
        let subArray4: AnyRealmValue = AnyRealmValue.fromArray([ subArray3, .int(99)])
        let array: Array<AnyRealmValue> = [
            subArray4, .float(20.34)
        ]

        setAnyRealmValueCol(with: AnyRealmValue.fromArray(array), object: object)
        assertQuery("(anyCol[%@] == %@)", values: [1, AnyRealmValue.float(20.34)], count: 1) {
            $0.anyCol[1] == .float(20.34)
        }

        assertQuery("(anyCol[%K] == %@)", values: ["#any", AnyRealmValue.float(20.34)], count: 1) {
            $0.anyCol.any == .float(20.34)
        }

        assertQuery("(anyCol[%@][%@] == %@)", values: [0, 1, AnyRealmValue.int(99)], count: 1) {
            $0.anyCol[0][1] == .int(99)
        }

        assertQuery("(anyCol[%@][%@][%@] == %@)", values: [0, 0, 1, AnyRealmValue.double(76.54)], count: 1) {
            $0.anyCol[0][0][1] == .double(76.54)
        }

        assertQuery("(anyCol[%@][%@][%K] == %@)", values: [0, 0, "#any", AnyRealmValue.double(76.54)], count: 1) {
            $0.anyCol[0][0].any == .double(76.54)
        }

        assertQuery("(anyCol[%@][%@][%@][%@] == %@)", values: [0, 0, 0, 0, AnyRealmValue.string("john")], count: 1) {
            $0.anyCol[0][0][0][0] == .string("john")
        }

        assertQuery("(anyCol[%@][%@][%@][%@] == %@)", values: [0, 0, 0, 1, AnyRealmValue.bool(false)], count: 1) {
            $0.anyCol[0][0][0][1] == .bool(false)
        }

        assertQuery("(anyCol[%@][%@][%@][%K] == %@)", values: [0, 0, 0, "#any", AnyRealmValue.string("john")], count: 1) {
            $0.anyCol[0][0][0].any == .string("john")
        }

        assertQuery("(anyCol[%@][%@][%@][%K] == %@)", values: [0, 0, 0, "#any", AnyRealmValue.bool(false)], count: 1) {
            $0.anyCol[0][0][0].any == .bool(false)
        }

        assertQuery("(anyCol[%@][%@] >= %@)", values: [0, 1, AnyRealmValue.int(99)], count: 1) {
            $0.anyCol[0][1] >= .int(99)
        }

        assertQuery("(anyCol[%@][%@] <= %@)", values: [0, 1, AnyRealmValue.int(99)], count: 1) {
            $0.anyCol[0][1] <= .int(99)
        }

        assertQuery("(anyCol[%@][%@] != %@)", values: [0, 1, AnyRealmValue.int(99)], count: 0) {
            $0.anyCol[0][1] != .int(99)
        }

        assertQuery("(anyCol[%@] == %@)", values: ["#any", AnyRealmValue.float(20.34)], count: 0) {
            $0.anyCol["#any"] == .float(20.34)
        }
    }

    @Test func testNestedAnyRealmDictionary() {
        let object = objects()[0]
        let subDict2: AnyRealmValue = AnyRealmValue.fromDictionary(["key6": .string("john"), "key7": .bool(false)])
        let subDict3: AnyRealmValue = AnyRealmValue.fromDictionary(["key4": subDict2, "key5": .double(76.54)])
        let subDict4: AnyRealmValue = AnyRealmValue.fromDictionary(["key2": subDict3, "key3": .int(99)])
        let dict: Dictionary<String, AnyRealmValue> = [
            "key0": subDict4, "key1": .float(20.34)
        ]

        setAnyRealmValueCol(with: AnyRealmValue.fromDictionary(dict), object: object)
        assertQuery("(anyCol[%@] == %@)", values: ["key1", AnyRealmValue.float(20.34)], count: 1) {
            $0.anyCol["key1"] == .float(20.34)
        }

        assertQuery("(anyCol[%K] == %@)", values: ["#any", AnyRealmValue.float(20.34)], count: 1) {
            $0.anyCol.any == .float(20.34)
        }

        assertQuery("(anyCol[%@][%@] == %@)", values: ["key0", "key3", AnyRealmValue.int(99)], count: 1) {
            $0.anyCol["key0"]["key3"] == .int(99)
        }

        assertQuery("(anyCol[%@][%K] == %@)", values: ["key0", "#any", AnyRealmValue.int(99)], count: 1) {
            $0.anyCol["key0"].any == .int(99)
        }

        assertQuery("(anyCol[%@][%@][%@] == %@)", values: ["key0", "key2", "key5", AnyRealmValue.double(76.54)], count: 1) {
            $0.anyCol["key0"]["key2"]["key5"] == .double(76.54)
        }

        assertQuery("(anyCol[%@][%@][%K] == %@)", values: ["key0", "key2", "#any", AnyRealmValue.double(76.54)], count: 1) {
            $0.anyCol["key0"]["key2"].any == .double(76.54)
        }

        assertQuery("(anyCol[%@][%@][%@][%@] == %@)", values: ["key0", "key2", "key4", "key6", AnyRealmValue.string("john")], count: 1) {
            $0.anyCol["key0"]["key2"]["key4"]["key6"] == .string("john")
        }

        assertQuery("(anyCol[%@][%@][%@][%@] == %@)", values: ["key0", "key2", "key4", "key7", AnyRealmValue.bool(false)], count: 1) {
            $0.anyCol["key0"]["key2"]["key4"]["key7"] == .bool(false)
        }

        assertQuery("(anyCol[%@][%K] >= %@)", values: ["key0", "#any", AnyRealmValue.int(99)], count: 1) {
            $0.anyCol["key0"].any >= .int(99)
        }

        assertQuery("(anyCol[%@][%K] <= %@)", values: ["key0", "#any", AnyRealmValue.int(99)], count: 1) {
            $0.anyCol["key0"].any <= .int(99)
        }

        assertQuery("(anyCol[%@][%@] != %@)", values: ["key0", "key3", AnyRealmValue.int(99)], count: 0) {
            $0.anyCol["key0"]["key3"] != .int(99)
        }

        assertQuery("(anyCol[%@][%@] == %@)", values: ["key0", "#any", AnyRealmValue.int(99)], count: 0) {
            $0.anyCol["key0"]["#any"] == .int(99)
        }
    }

    @Test func testNumericComparisons() {
        validateNumericComparisons("decimalCol", \Query<ModernSetMapMixedObject>.decimalCol, Decimal128(234.567))
        validateNumericComparisons("optDecimalCol", \Query<ModernSetMapMixedObject>.optDecimalCol, Decimal128(234.567))
        validateNumericComparisons("optDecimalCol", \Query<ModernSetMapMixedObject>.optDecimalCol, nil, count: 0)
    }

    @Test func testGreaterThanNumericAnyRealmValue() {
        let object = objects()[0]
        setAnyRealmValueCol(with: .int(123), object: object)
        assertQuery("(anyCol > %@)", AnyRealmValue.int(123), count: 0) {
            $0.anyCol > .int(123)
        }
        assertQuery("(anyCol >= %@)", AnyRealmValue.int(123), count: 1) {
            $0.anyCol >= .int(123)
        }
        setAnyRealmValueCol(with: .float(123.456), object: object)
        assertQuery("(anyCol > %@)", AnyRealmValue.float(123.456), count: 0) {
            $0.anyCol > .float(123.456)
        }
        assertQuery("(anyCol >= %@)", AnyRealmValue.float(123.456), count: 1) {
            $0.anyCol >= .float(123.456)
        }
        setAnyRealmValueCol(with: .double(123.456), object: object)
        assertQuery("(anyCol > %@)", AnyRealmValue.double(123.456), count: 0) {
            $0.anyCol > .double(123.456)
        }
        assertQuery("(anyCol >= %@)", AnyRealmValue.double(123.456), count: 1) {
            $0.anyCol >= .double(123.456)
        }
        setAnyRealmValueCol(with: .date(Date(timeIntervalSince1970: 1000000)), object: object)
        assertQuery("(anyCol > %@)", AnyRealmValue.date(Date(timeIntervalSince1970: 1000000)), count: 0) {
            $0.anyCol > .date(Date(timeIntervalSince1970: 1000000))
        }
        assertQuery("(anyCol >= %@)", AnyRealmValue.date(Date(timeIntervalSince1970: 1000000)), count: 1) {
            $0.anyCol >= .date(Date(timeIntervalSince1970: 1000000))
        }
        setAnyRealmValueCol(with: .decimal128(123.456), object: object)
        assertQuery("(anyCol > %@)", AnyRealmValue.decimal128(123.456), count: 0) {
            $0.anyCol > .decimal128(123.456)
        }
        assertQuery("(anyCol >= %@)", AnyRealmValue.decimal128(123.456), count: 1) {
            $0.anyCol >= .decimal128(123.456)
        }
    }

    @Test func testGreaterThanStringAnyRealmValue() {
        let object = objects()[0]
        setAnyRealmValueCol(with: .string("FooBar"), object: object)
        assertQuery("(anyCol > %@)", AnyRealmValue.string("FooBar"), count: 0) {
            $0.anyCol > .string("FooBar")
        }
        assertQuery("(anyCol >= %@)", AnyRealmValue.string("FooBar"), count: 1) {
            $0.anyCol >= .string("FooBar")
        }
    }

    @Test func testLessThanNumericAnyRealmValue() {
        let object = objects()[0]
        setAnyRealmValueCol(with: .int(123), object: object)
        assertQuery("(anyCol < %@)", AnyRealmValue.int(123), count: 0) {
            $0.anyCol < .int(123)
        }
        assertQuery("(anyCol <= %@)", AnyRealmValue.int(123), count: 1) {
            $0.anyCol <= .int(123)
        }
        setAnyRealmValueCol(with: .float(123.456), object: object)
        assertQuery("(anyCol < %@)", AnyRealmValue.float(123.456), count: 0) {
            $0.anyCol < .float(123.456)
        }
        assertQuery("(anyCol <= %@)", AnyRealmValue.float(123.456), count: 1) {
            $0.anyCol <= .float(123.456)
        }
        setAnyRealmValueCol(with: .double(123.456), object: object)
        assertQuery("(anyCol < %@)", AnyRealmValue.double(123.456), count: 0) {
            $0.anyCol < .double(123.456)
        }
        assertQuery("(anyCol <= %@)", AnyRealmValue.double(123.456), count: 1) {
            $0.anyCol <= .double(123.456)
        }
        setAnyRealmValueCol(with: .date(Date(timeIntervalSince1970: 1000000)), object: object)
        assertQuery("(anyCol < %@)", AnyRealmValue.date(Date(timeIntervalSince1970: 1000000)), count: 0) {
            $0.anyCol < .date(Date(timeIntervalSince1970: 1000000))
        }
        assertQuery("(anyCol <= %@)", AnyRealmValue.date(Date(timeIntervalSince1970: 1000000)), count: 1) {
            $0.anyCol <= .date(Date(timeIntervalSince1970: 1000000))
        }
        setAnyRealmValueCol(with: .decimal128(123.456), object: object)
        assertQuery("(anyCol < %@)", AnyRealmValue.decimal128(123.456), count: 0) {
            $0.anyCol < .decimal128(123.456)
        }
        assertQuery("(anyCol <= %@)", AnyRealmValue.decimal128(123.456), count: 1) {
            $0.anyCol <= .decimal128(123.456)
        }
    }

    @Test func testLessThanStringAnyRealmValue() {
        let object = objects()[0]
        setAnyRealmValueCol(with: .string("FooBar"), object: object)
        assertQuery("(anyCol < %@)", AnyRealmValue.string("FooBar"), count: 0) {
            $0.anyCol < .string("FooBar")
        }
        assertQuery("(anyCol <= %@)", AnyRealmValue.string("FooBar"), count: 1) {
            $0.anyCol <= .string("FooBar")
        }
    }

    @Test func testNumericContains() {
        validateNumericContains("decimalCol", \Query<ModernSetMapMixedObject>.decimalCol)
        validateNumericContains("optDecimalCol", \Query<ModernSetMapMixedObject>.optDecimalCol)
    }

    @Test func testCollectionContainsElement() {
        validateCollectionContains("arrayDecimal", \Query<ModernSetMapMixedObject>.arrayDecimal)
        validateCollectionContains("arrayAny", \Query<ModernSetMapMixedObject>.arrayAny)
        validateCollectionContains("arrayOptDecimal", \Query<ModernSetMapMixedObject>.arrayOptDecimal)
        validateCollectionContains("setBool", \Query<ModernSetMapMixedObject>.setBool)
        validateCollectionContains("setInt", \Query<ModernSetMapMixedObject>.setInt)
        validateCollectionContains("setInt8", \Query<ModernSetMapMixedObject>.setInt8)
        validateCollectionContains("setInt16", \Query<ModernSetMapMixedObject>.setInt16)
        validateCollectionContains("setInt32", \Query<ModernSetMapMixedObject>.setInt32)
        validateCollectionContains("setInt64", \Query<ModernSetMapMixedObject>.setInt64)
        validateCollectionContains("setFloat", \Query<ModernSetMapMixedObject>.setFloat)
        validateCollectionContains("setDouble", \Query<ModernSetMapMixedObject>.setDouble)
        validateCollectionContains("setString", \Query<ModernSetMapMixedObject>.setString)
        validateCollectionContains("setBinary", \Query<ModernSetMapMixedObject>.setBinary)
        validateCollectionContains("setDate", \Query<ModernSetMapMixedObject>.setDate)
        validateCollectionContains("setDecimal", \Query<ModernSetMapMixedObject>.setDecimal)
        validateCollectionContains("setObjectId", \Query<ModernSetMapMixedObject>.setObjectId)
        validateCollectionContains("setUuid", \Query<ModernSetMapMixedObject>.setUuid)
        validateCollectionContains("setAny", \Query<ModernSetMapMixedObject>.setAny)
        validateCollectionContains("setOptBool", \Query<ModernSetMapMixedObject>.setOptBool)
        validateCollectionContains("setOptInt", \Query<ModernSetMapMixedObject>.setOptInt)
        validateCollectionContains("setOptInt8", \Query<ModernSetMapMixedObject>.setOptInt8)
        validateCollectionContains("setOptInt16", \Query<ModernSetMapMixedObject>.setOptInt16)
        validateCollectionContains("setOptInt32", \Query<ModernSetMapMixedObject>.setOptInt32)
        validateCollectionContains("setOptInt64", \Query<ModernSetMapMixedObject>.setOptInt64)
        validateCollectionContains("setOptFloat", \Query<ModernSetMapMixedObject>.setOptFloat)
        validateCollectionContains("setOptDouble", \Query<ModernSetMapMixedObject>.setOptDouble)
        validateCollectionContains("setOptString", \Query<ModernSetMapMixedObject>.setOptString)
        validateCollectionContains("setOptBinary", \Query<ModernSetMapMixedObject>.setOptBinary)
        validateCollectionContains("setOptDate", \Query<ModernSetMapMixedObject>.setOptDate)
        validateCollectionContains("setOptDecimal", \Query<ModernSetMapMixedObject>.setOptDecimal)
        validateCollectionContains("setOptObjectId", \Query<ModernSetMapMixedObject>.setOptObjectId)
        validateCollectionContains("setOptUuid", \Query<ModernSetMapMixedObject>.setOptUuid)
        validateCollectionContains("mapBool", \Query<ModernSetMapMixedObject>.mapBool)
        validateCollectionContains("mapInt", \Query<ModernSetMapMixedObject>.mapInt)
        validateCollectionContains("mapInt8", \Query<ModernSetMapMixedObject>.mapInt8)
        validateCollectionContains("mapInt16", \Query<ModernSetMapMixedObject>.mapInt16)
        validateCollectionContains("mapInt32", \Query<ModernSetMapMixedObject>.mapInt32)
        validateCollectionContains("mapInt64", \Query<ModernSetMapMixedObject>.mapInt64)
        validateCollectionContains("mapFloat", \Query<ModernSetMapMixedObject>.mapFloat)
        validateCollectionContains("mapDouble", \Query<ModernSetMapMixedObject>.mapDouble)
        validateCollectionContains("mapString", \Query<ModernSetMapMixedObject>.mapString)
        validateCollectionContains("mapBinary", \Query<ModernSetMapMixedObject>.mapBinary)
        validateCollectionContains("mapDate", \Query<ModernSetMapMixedObject>.mapDate)
        validateCollectionContains("mapDecimal", \Query<ModernSetMapMixedObject>.mapDecimal)
        validateCollectionContains("mapObjectId", \Query<ModernSetMapMixedObject>.mapObjectId)
        validateCollectionContains("mapUuid", \Query<ModernSetMapMixedObject>.mapUuid)
        validateCollectionContains("mapAny", \Query<ModernSetMapMixedObject>.mapAny)
        validateCollectionContains("mapOptBool", \Query<ModernSetMapMixedObject>.mapOptBool)
        validateCollectionContains("mapOptInt", \Query<ModernSetMapMixedObject>.mapOptInt)
        validateCollectionContains("mapOptInt8", \Query<ModernSetMapMixedObject>.mapOptInt8)
        validateCollectionContains("mapOptInt16", \Query<ModernSetMapMixedObject>.mapOptInt16)
        validateCollectionContains("mapOptInt32", \Query<ModernSetMapMixedObject>.mapOptInt32)
        validateCollectionContains("mapOptInt64", \Query<ModernSetMapMixedObject>.mapOptInt64)
        validateCollectionContains("mapOptFloat", \Query<ModernSetMapMixedObject>.mapOptFloat)
        validateCollectionContains("mapOptDouble", \Query<ModernSetMapMixedObject>.mapOptDouble)
        validateCollectionContains("mapOptString", \Query<ModernSetMapMixedObject>.mapOptString)
        validateCollectionContains("mapOptBinary", \Query<ModernSetMapMixedObject>.mapOptBinary)
        validateCollectionContains("mapOptDate", \Query<ModernSetMapMixedObject>.mapOptDate)
        validateCollectionContains("mapOptDecimal", \Query<ModernSetMapMixedObject>.mapOptDecimal)
        validateCollectionContains("mapOptObjectId", \Query<ModernSetMapMixedObject>.mapOptObjectId)
        validateCollectionContains("mapOptUuid", \Query<ModernSetMapMixedObject>.mapOptUuid)
        validateCollectionContainsNil("arrayOptDecimal", \Query<ModernSetMapMixedObject>.arrayOptDecimal)
        validateCollectionContainsNil("setOptBool", \Query<ModernSetMapMixedObject>.setOptBool)
        validateCollectionContainsNil("setOptInt", \Query<ModernSetMapMixedObject>.setOptInt)
        validateCollectionContainsNil("setOptInt8", \Query<ModernSetMapMixedObject>.setOptInt8)
        validateCollectionContainsNil("setOptInt16", \Query<ModernSetMapMixedObject>.setOptInt16)
        validateCollectionContainsNil("setOptInt32", \Query<ModernSetMapMixedObject>.setOptInt32)
        validateCollectionContainsNil("setOptInt64", \Query<ModernSetMapMixedObject>.setOptInt64)
        validateCollectionContainsNil("setOptFloat", \Query<ModernSetMapMixedObject>.setOptFloat)
        validateCollectionContainsNil("setOptDouble", \Query<ModernSetMapMixedObject>.setOptDouble)
        validateCollectionContainsNil("setOptString", \Query<ModernSetMapMixedObject>.setOptString)
        validateCollectionContainsNil("setOptBinary", \Query<ModernSetMapMixedObject>.setOptBinary)
        validateCollectionContainsNil("setOptDate", \Query<ModernSetMapMixedObject>.setOptDate)
        validateCollectionContainsNil("setOptDecimal", \Query<ModernSetMapMixedObject>.setOptDecimal)
        validateCollectionContainsNil("setOptObjectId", \Query<ModernSetMapMixedObject>.setOptObjectId)
        validateCollectionContainsNil("setOptUuid", \Query<ModernSetMapMixedObject>.setOptUuid)
        validateCollectionContainsNil("mapOptBool", \Query<ModernSetMapMixedObject>.mapOptBool)
        validateCollectionContainsNil("mapOptInt", \Query<ModernSetMapMixedObject>.mapOptInt)
        validateCollectionContainsNil("mapOptInt8", \Query<ModernSetMapMixedObject>.mapOptInt8)
        validateCollectionContainsNil("mapOptInt16", \Query<ModernSetMapMixedObject>.mapOptInt16)
        validateCollectionContainsNil("mapOptInt32", \Query<ModernSetMapMixedObject>.mapOptInt32)
        validateCollectionContainsNil("mapOptInt64", \Query<ModernSetMapMixedObject>.mapOptInt64)
        validateCollectionContainsNil("mapOptFloat", \Query<ModernSetMapMixedObject>.mapOptFloat)
        validateCollectionContainsNil("mapOptDouble", \Query<ModernSetMapMixedObject>.mapOptDouble)
        validateCollectionContainsNil("mapOptString", \Query<ModernSetMapMixedObject>.mapOptString)
        validateCollectionContainsNil("mapOptBinary", \Query<ModernSetMapMixedObject>.mapOptBinary)
        validateCollectionContainsNil("mapOptDate", \Query<ModernSetMapMixedObject>.mapOptDate)
        validateCollectionContainsNil("mapOptDecimal", \Query<ModernSetMapMixedObject>.mapOptDecimal)
        validateCollectionContainsNil("mapOptObjectId", \Query<ModernSetMapMixedObject>.mapOptObjectId)
        validateCollectionContainsNil("mapOptUuid", \Query<ModernSetMapMixedObject>.mapOptUuid)
    }

    @Test func testCollectionContainsRange() {
        assertQuery(ModernSetMapMixedObject.self, "((arrayDecimal.@min >= %@) && (arrayDecimal.@max <= %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 1) {
            $0.arrayDecimal.contains(Decimal128(123.456)...Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((arrayDecimal.@min >= %@) && (arrayDecimal.@max < %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 0) {
            $0.arrayDecimal.contains(Decimal128(123.456)..<Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((arrayOptDecimal.@min >= %@) && (arrayOptDecimal.@max <= %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 1) {
            $0.arrayOptDecimal.contains(Decimal128(123.456)...Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((arrayOptDecimal.@min >= %@) && (arrayOptDecimal.@max < %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 0) {
            $0.arrayOptDecimal.contains(Decimal128(123.456)..<Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt.@min >= %@) && (setInt.@max <= %@))",
                    values: [1, 3], count: 1) {
            $0.setInt.contains(1...3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt.@min >= %@) && (setInt.@max < %@))",
                    values: [1, 3], count: 0) {
            $0.setInt.contains(1..<3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt8.@min >= %@) && (setInt8.@max <= %@))",
                    values: [Int8(8), Int8(9)], count: 1) {
            $0.setInt8.contains(Int8(8)...Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt8.@min >= %@) && (setInt8.@max < %@))",
                    values: [Int8(8), Int8(9)], count: 0) {
            $0.setInt8.contains(Int8(8)..<Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt16.@min >= %@) && (setInt16.@max <= %@))",
                    values: [Int16(16), Int16(17)], count: 1) {
            $0.setInt16.contains(Int16(16)...Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt16.@min >= %@) && (setInt16.@max < %@))",
                    values: [Int16(16), Int16(17)], count: 0) {
            $0.setInt16.contains(Int16(16)..<Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt32.@min >= %@) && (setInt32.@max <= %@))",
                    values: [Int32(32), Int32(33)], count: 1) {
            $0.setInt32.contains(Int32(32)...Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt32.@min >= %@) && (setInt32.@max < %@))",
                    values: [Int32(32), Int32(33)], count: 0) {
            $0.setInt32.contains(Int32(32)..<Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt64.@min >= %@) && (setInt64.@max <= %@))",
                    values: [Int64(64), Int64(65)], count: 1) {
            $0.setInt64.contains(Int64(64)...Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setInt64.@min >= %@) && (setInt64.@max < %@))",
                    values: [Int64(64), Int64(65)], count: 0) {
            $0.setInt64.contains(Int64(64)..<Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setFloat.@min >= %@) && (setFloat.@max <= %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 1) {
            $0.setFloat.contains(Float(5.55444333)...Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setFloat.@min >= %@) && (setFloat.@max < %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 0) {
            $0.setFloat.contains(Float(5.55444333)..<Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setDouble.@min >= %@) && (setDouble.@max <= %@))",
                    values: [123.456, 234.567], count: 1) {
            $0.setDouble.contains(123.456...234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setDouble.@min >= %@) && (setDouble.@max < %@))",
                    values: [123.456, 234.567], count: 0) {
            $0.setDouble.contains(123.456..<234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setDate.@min >= %@) && (setDate.@max <= %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 1) {
            $0.setDate.contains(Date(timeIntervalSince1970: 1000000)...Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setDate.@min >= %@) && (setDate.@max < %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 0) {
            $0.setDate.contains(Date(timeIntervalSince1970: 1000000)..<Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setDecimal.@min >= %@) && (setDecimal.@max <= %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 1) {
            $0.setDecimal.contains(Decimal128(123.456)...Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setDecimal.@min >= %@) && (setDecimal.@max < %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 0) {
            $0.setDecimal.contains(Decimal128(123.456)..<Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt.@min >= %@) && (setOptInt.@max <= %@))",
                    values: [1, 3], count: 1) {
            $0.setOptInt.contains(1...3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt.@min >= %@) && (setOptInt.@max < %@))",
                    values: [1, 3], count: 0) {
            $0.setOptInt.contains(1..<3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt8.@min >= %@) && (setOptInt8.@max <= %@))",
                    values: [Int8(8), Int8(9)], count: 1) {
            $0.setOptInt8.contains(Int8(8)...Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt8.@min >= %@) && (setOptInt8.@max < %@))",
                    values: [Int8(8), Int8(9)], count: 0) {
            $0.setOptInt8.contains(Int8(8)..<Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt16.@min >= %@) && (setOptInt16.@max <= %@))",
                    values: [Int16(16), Int16(17)], count: 1) {
            $0.setOptInt16.contains(Int16(16)...Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt16.@min >= %@) && (setOptInt16.@max < %@))",
                    values: [Int16(16), Int16(17)], count: 0) {
            $0.setOptInt16.contains(Int16(16)..<Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt32.@min >= %@) && (setOptInt32.@max <= %@))",
                    values: [Int32(32), Int32(33)], count: 1) {
            $0.setOptInt32.contains(Int32(32)...Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt32.@min >= %@) && (setOptInt32.@max < %@))",
                    values: [Int32(32), Int32(33)], count: 0) {
            $0.setOptInt32.contains(Int32(32)..<Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt64.@min >= %@) && (setOptInt64.@max <= %@))",
                    values: [Int64(64), Int64(65)], count: 1) {
            $0.setOptInt64.contains(Int64(64)...Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptInt64.@min >= %@) && (setOptInt64.@max < %@))",
                    values: [Int64(64), Int64(65)], count: 0) {
            $0.setOptInt64.contains(Int64(64)..<Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptFloat.@min >= %@) && (setOptFloat.@max <= %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 1) {
            $0.setOptFloat.contains(Float(5.55444333)...Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptFloat.@min >= %@) && (setOptFloat.@max < %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 0) {
            $0.setOptFloat.contains(Float(5.55444333)..<Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptDouble.@min >= %@) && (setOptDouble.@max <= %@))",
                    values: [123.456, 234.567], count: 1) {
            $0.setOptDouble.contains(123.456...234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptDouble.@min >= %@) && (setOptDouble.@max < %@))",
                    values: [123.456, 234.567], count: 0) {
            $0.setOptDouble.contains(123.456..<234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptDate.@min >= %@) && (setOptDate.@max <= %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 1) {
            $0.setOptDate.contains(Date(timeIntervalSince1970: 1000000)...Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptDate.@min >= %@) && (setOptDate.@max < %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 0) {
            $0.setOptDate.contains(Date(timeIntervalSince1970: 1000000)..<Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptDecimal.@min >= %@) && (setOptDecimal.@max <= %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 1) {
            $0.setOptDecimal.contains(Decimal128(123.456)...Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((setOptDecimal.@min >= %@) && (setOptDecimal.@max < %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 0) {
            $0.setOptDecimal.contains(Decimal128(123.456)..<Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt.@min >= %@) && (mapInt.@max <= %@))",
                    values: [1, 3], count: 1) {
            $0.mapInt.contains(1...3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt.@min >= %@) && (mapInt.@max < %@))",
                    values: [1, 3], count: 0) {
            $0.mapInt.contains(1..<3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt8.@min >= %@) && (mapInt8.@max <= %@))",
                    values: [Int8(8), Int8(9)], count: 1) {
            $0.mapInt8.contains(Int8(8)...Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt8.@min >= %@) && (mapInt8.@max < %@))",
                    values: [Int8(8), Int8(9)], count: 0) {
            $0.mapInt8.contains(Int8(8)..<Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt16.@min >= %@) && (mapInt16.@max <= %@))",
                    values: [Int16(16), Int16(17)], count: 1) {
            $0.mapInt16.contains(Int16(16)...Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt16.@min >= %@) && (mapInt16.@max < %@))",
                    values: [Int16(16), Int16(17)], count: 0) {
            $0.mapInt16.contains(Int16(16)..<Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt32.@min >= %@) && (mapInt32.@max <= %@))",
                    values: [Int32(32), Int32(33)], count: 1) {
            $0.mapInt32.contains(Int32(32)...Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt32.@min >= %@) && (mapInt32.@max < %@))",
                    values: [Int32(32), Int32(33)], count: 0) {
            $0.mapInt32.contains(Int32(32)..<Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt64.@min >= %@) && (mapInt64.@max <= %@))",
                    values: [Int64(64), Int64(65)], count: 1) {
            $0.mapInt64.contains(Int64(64)...Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapInt64.@min >= %@) && (mapInt64.@max < %@))",
                    values: [Int64(64), Int64(65)], count: 0) {
            $0.mapInt64.contains(Int64(64)..<Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapFloat.@min >= %@) && (mapFloat.@max <= %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 1) {
            $0.mapFloat.contains(Float(5.55444333)...Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapFloat.@min >= %@) && (mapFloat.@max < %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 0) {
            $0.mapFloat.contains(Float(5.55444333)..<Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapDouble.@min >= %@) && (mapDouble.@max <= %@))",
                    values: [123.456, 234.567], count: 1) {
            $0.mapDouble.contains(123.456...234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapDouble.@min >= %@) && (mapDouble.@max < %@))",
                    values: [123.456, 234.567], count: 0) {
            $0.mapDouble.contains(123.456..<234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapDate.@min >= %@) && (mapDate.@max <= %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 1) {
            $0.mapDate.contains(Date(timeIntervalSince1970: 1000000)...Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapDate.@min >= %@) && (mapDate.@max < %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 0) {
            $0.mapDate.contains(Date(timeIntervalSince1970: 1000000)..<Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapDecimal.@min >= %@) && (mapDecimal.@max <= %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 1) {
            $0.mapDecimal.contains(Decimal128(123.456)...Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapDecimal.@min >= %@) && (mapDecimal.@max < %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 0) {
            $0.mapDecimal.contains(Decimal128(123.456)..<Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt.@min >= %@) && (mapOptInt.@max <= %@))",
                    values: [1, 3], count: 1) {
            $0.mapOptInt.contains(1...3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt.@min >= %@) && (mapOptInt.@max < %@))",
                    values: [1, 3], count: 0) {
            $0.mapOptInt.contains(1..<3)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt8.@min >= %@) && (mapOptInt8.@max <= %@))",
                    values: [Int8(8), Int8(9)], count: 1) {
            $0.mapOptInt8.contains(Int8(8)...Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt8.@min >= %@) && (mapOptInt8.@max < %@))",
                    values: [Int8(8), Int8(9)], count: 0) {
            $0.mapOptInt8.contains(Int8(8)..<Int8(9))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt16.@min >= %@) && (mapOptInt16.@max <= %@))",
                    values: [Int16(16), Int16(17)], count: 1) {
            $0.mapOptInt16.contains(Int16(16)...Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt16.@min >= %@) && (mapOptInt16.@max < %@))",
                    values: [Int16(16), Int16(17)], count: 0) {
            $0.mapOptInt16.contains(Int16(16)..<Int16(17))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt32.@min >= %@) && (mapOptInt32.@max <= %@))",
                    values: [Int32(32), Int32(33)], count: 1) {
            $0.mapOptInt32.contains(Int32(32)...Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt32.@min >= %@) && (mapOptInt32.@max < %@))",
                    values: [Int32(32), Int32(33)], count: 0) {
            $0.mapOptInt32.contains(Int32(32)..<Int32(33))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt64.@min >= %@) && (mapOptInt64.@max <= %@))",
                    values: [Int64(64), Int64(65)], count: 1) {
            $0.mapOptInt64.contains(Int64(64)...Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptInt64.@min >= %@) && (mapOptInt64.@max < %@))",
                    values: [Int64(64), Int64(65)], count: 0) {
            $0.mapOptInt64.contains(Int64(64)..<Int64(65))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptFloat.@min >= %@) && (mapOptFloat.@max <= %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 1) {
            $0.mapOptFloat.contains(Float(5.55444333)...Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptFloat.@min >= %@) && (mapOptFloat.@max < %@))",
                    values: [Float(5.55444333), Float(6.55444333)], count: 0) {
            $0.mapOptFloat.contains(Float(5.55444333)..<Float(6.55444333))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptDouble.@min >= %@) && (mapOptDouble.@max <= %@))",
                    values: [123.456, 234.567], count: 1) {
            $0.mapOptDouble.contains(123.456...234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptDouble.@min >= %@) && (mapOptDouble.@max < %@))",
                    values: [123.456, 234.567], count: 0) {
            $0.mapOptDouble.contains(123.456..<234.567)
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptDate.@min >= %@) && (mapOptDate.@max <= %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 1) {
            $0.mapOptDate.contains(Date(timeIntervalSince1970: 1000000)...Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptDate.@min >= %@) && (mapOptDate.@max < %@))",
                    values: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)], count: 0) {
            $0.mapOptDate.contains(Date(timeIntervalSince1970: 1000000)..<Date(timeIntervalSince1970: 2000000))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptDecimal.@min >= %@) && (mapOptDecimal.@max <= %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 1) {
            $0.mapOptDecimal.contains(Decimal128(123.456)...Decimal128(234.567))
        }
        assertQuery(ModernSetMapMixedObject.self, "((mapOptDecimal.@min >= %@) && (mapOptDecimal.@max < %@))",
                    values: [Decimal128(123.456), Decimal128(234.567)], count: 0) {
            $0.mapOptDecimal.contains(Decimal128(123.456)..<Decimal128(234.567))
        }
    }

    @Test func testListContainsAnyInObject() {
        assertQuery(ModernSetMapMixedObject.self, "(ANY arrayDecimal IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.arrayDecimal.containsAny(in: [Decimal128(123.456), Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY arrayAny IN %@)",
                    values: [NSArray(array: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])], count: 1) {
            $0.arrayAny.containsAny(in: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY arrayOptDecimal IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.arrayOptDecimal.containsAny(in: [Decimal128(123.456), Decimal128(234.567)])
        }
    }

    @Test func testSetContainsAnyInObject() {
        assertQuery(ModernSetMapMixedObject.self, "(ANY setBool IN %@)",
                    values: [NSArray(array: [true, true])], count: 1) {
            $0.setBool.containsAny(in: [true, true])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt IN %@)",
                    values: [NSArray(array: [1, 3])], count: 1) {
            $0.setInt.containsAny(in: [1, 3])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt8 IN %@)",
                    values: [NSArray(array: [Int8(8), Int8(9)])], count: 1) {
            $0.setInt8.containsAny(in: [Int8(8), Int8(9)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt16 IN %@)",
                    values: [NSArray(array: [Int16(16), Int16(17)])], count: 1) {
            $0.setInt16.containsAny(in: [Int16(16), Int16(17)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt32 IN %@)",
                    values: [NSArray(array: [Int32(32), Int32(33)])], count: 1) {
            $0.setInt32.containsAny(in: [Int32(32), Int32(33)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt64 IN %@)",
                    values: [NSArray(array: [Int64(64), Int64(65)])], count: 1) {
            $0.setInt64.containsAny(in: [Int64(64), Int64(65)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setFloat IN %@)",
                    values: [NSArray(array: [Float(5.55444333), Float(6.55444333)])], count: 1) {
            $0.setFloat.containsAny(in: [Float(5.55444333), Float(6.55444333)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setDouble IN %@)",
                    values: [NSArray(array: [123.456, 234.567])], count: 1) {
            $0.setDouble.containsAny(in: [123.456, 234.567])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setString IN %@)",
                    values: [NSArray(array: ["Foo", "Foó"])], count: 1) {
            $0.setString.containsAny(in: ["Foo", "Foó"])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setBinary IN %@)",
                    values: [NSArray(array: [Data(count: 64), Data(count: 128)])], count: 1) {
            $0.setBinary.containsAny(in: [Data(count: 64), Data(count: 128)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setDate IN %@)",
                    values: [NSArray(array: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])], count: 1) {
            $0.setDate.containsAny(in: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setDecimal IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.setDecimal.containsAny(in: [Decimal128(123.456), Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setObjectId IN %@)",
                    values: [NSArray(array: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])], count: 1) {
            $0.setObjectId.containsAny(in: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setUuid IN %@)",
                    values: [NSArray(array: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])], count: 1) {
            $0.setUuid.containsAny(in: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setAny IN %@)",
                    values: [NSArray(array: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])], count: 1) {
            $0.setAny.containsAny(in: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptBool IN %@)",
                    values: [NSArray(array: [true, true])], count: 1) {
            $0.setOptBool.containsAny(in: [true, true])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt IN %@)",
                    values: [NSArray(array: [1, 3])], count: 1) {
            $0.setOptInt.containsAny(in: [1, 3])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt8 IN %@)",
                    values: [NSArray(array: [Int8(8), Int8(9)])], count: 1) {
            $0.setOptInt8.containsAny(in: [Int8(8), Int8(9)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt16 IN %@)",
                    values: [NSArray(array: [Int16(16), Int16(17)])], count: 1) {
            $0.setOptInt16.containsAny(in: [Int16(16), Int16(17)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt32 IN %@)",
                    values: [NSArray(array: [Int32(32), Int32(33)])], count: 1) {
            $0.setOptInt32.containsAny(in: [Int32(32), Int32(33)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt64 IN %@)",
                    values: [NSArray(array: [Int64(64), Int64(65)])], count: 1) {
            $0.setOptInt64.containsAny(in: [Int64(64), Int64(65)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptFloat IN %@)",
                    values: [NSArray(array: [Float(5.55444333), Float(6.55444333)])], count: 1) {
            $0.setOptFloat.containsAny(in: [Float(5.55444333), Float(6.55444333)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptDouble IN %@)",
                    values: [NSArray(array: [123.456, 234.567])], count: 1) {
            $0.setOptDouble.containsAny(in: [123.456, 234.567])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptString IN %@)",
                    values: [NSArray(array: ["Foo", "Foó"])], count: 1) {
            $0.setOptString.containsAny(in: ["Foo", "Foó"])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptBinary IN %@)",
                    values: [NSArray(array: [Data(count: 64), Data(count: 128)])], count: 1) {
            $0.setOptBinary.containsAny(in: [Data(count: 64), Data(count: 128)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptDate IN %@)",
                    values: [NSArray(array: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])], count: 1) {
            $0.setOptDate.containsAny(in: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptDecimal IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.setOptDecimal.containsAny(in: [Decimal128(123.456), Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptObjectId IN %@)",
                    values: [NSArray(array: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])], count: 1) {
            $0.setOptObjectId.containsAny(in: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptUuid IN %@)",
                    values: [NSArray(array: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])], count: 1) {
            $0.setOptUuid.containsAny(in: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])
        }
    }

    @Test func testMapAllKeys() {
        validateAllKeys("mapBool", \Query<ModernSetMapMixedObject>.mapBool)
        validateAllKeys("mapInt", \Query<ModernSetMapMixedObject>.mapInt)
        validateAllKeys("mapInt8", \Query<ModernSetMapMixedObject>.mapInt8)
        validateAllKeys("mapInt16", \Query<ModernSetMapMixedObject>.mapInt16)
        validateAllKeys("mapInt32", \Query<ModernSetMapMixedObject>.mapInt32)
        validateAllKeys("mapInt64", \Query<ModernSetMapMixedObject>.mapInt64)
        validateAllKeys("mapFloat", \Query<ModernSetMapMixedObject>.mapFloat)
        validateAllKeys("mapDouble", \Query<ModernSetMapMixedObject>.mapDouble)
        validateAllKeys("mapString", \Query<ModernSetMapMixedObject>.mapString)
        validateAllKeys("mapBinary", \Query<ModernSetMapMixedObject>.mapBinary)
        validateAllKeys("mapDate", \Query<ModernSetMapMixedObject>.mapDate)
        validateAllKeys("mapDecimal", \Query<ModernSetMapMixedObject>.mapDecimal)
        validateAllKeys("mapObjectId", \Query<ModernSetMapMixedObject>.mapObjectId)
        validateAllKeys("mapUuid", \Query<ModernSetMapMixedObject>.mapUuid)
        validateAllKeys("mapAny", \Query<ModernSetMapMixedObject>.mapAny)
        validateAllKeys("mapOptBool", \Query<ModernSetMapMixedObject>.mapOptBool)
        validateAllKeys("mapOptInt", \Query<ModernSetMapMixedObject>.mapOptInt)
        validateAllKeys("mapOptInt8", \Query<ModernSetMapMixedObject>.mapOptInt8)
        validateAllKeys("mapOptInt16", \Query<ModernSetMapMixedObject>.mapOptInt16)
        validateAllKeys("mapOptInt32", \Query<ModernSetMapMixedObject>.mapOptInt32)
        validateAllKeys("mapOptInt64", \Query<ModernSetMapMixedObject>.mapOptInt64)
        validateAllKeys("mapOptFloat", \Query<ModernSetMapMixedObject>.mapOptFloat)
        validateAllKeys("mapOptDouble", \Query<ModernSetMapMixedObject>.mapOptDouble)
        validateAllKeys("mapOptString", \Query<ModernSetMapMixedObject>.mapOptString)
        validateAllKeys("mapOptBinary", \Query<ModernSetMapMixedObject>.mapOptBinary)
        validateAllKeys("mapOptDate", \Query<ModernSetMapMixedObject>.mapOptDate)
        validateAllKeys("mapOptDecimal", \Query<ModernSetMapMixedObject>.mapOptDecimal)
        validateAllKeys("mapOptObjectId", \Query<ModernSetMapMixedObject>.mapOptObjectId)
        validateAllKeys("mapOptUuid", \Query<ModernSetMapMixedObject>.mapOptUuid)
    }

    @Test func testMapAllValues() {
        validateEquals("ANY mapBool.@allValues", \Query<ModernSetMapMixedObject>.mapBool.values, true)
        validateEquals("ANY mapInt.@allValues", \Query<ModernSetMapMixedObject>.mapInt.values, 1, notEqualCount: 1)
        validateNumericComparisons("ANY mapInt.@allValues", \Query<ModernSetMapMixedObject>.mapInt.values, 3, ltCount: 1)
        validateEquals("ANY mapInt8.@allValues", \Query<ModernSetMapMixedObject>.mapInt8.values, Int8(8), notEqualCount: 1)
        validateNumericComparisons("ANY mapInt8.@allValues", \Query<ModernSetMapMixedObject>.mapInt8.values, Int8(9), ltCount: 1)
        validateEquals("ANY mapInt16.@allValues", \Query<ModernSetMapMixedObject>.mapInt16.values, Int16(16), notEqualCount: 1)
        validateNumericComparisons("ANY mapInt16.@allValues", \Query<ModernSetMapMixedObject>.mapInt16.values, Int16(17), ltCount: 1)
        validateEquals("ANY mapInt32.@allValues", \Query<ModernSetMapMixedObject>.mapInt32.values, Int32(32), notEqualCount: 1)
        validateNumericComparisons("ANY mapInt32.@allValues", \Query<ModernSetMapMixedObject>.mapInt32.values, Int32(33), ltCount: 1)
        validateEquals("ANY mapInt64.@allValues", \Query<ModernSetMapMixedObject>.mapInt64.values, Int64(64), notEqualCount: 1)
        validateNumericComparisons("ANY mapInt64.@allValues", \Query<ModernSetMapMixedObject>.mapInt64.values, Int64(65), ltCount: 1)
        validateEquals("ANY mapFloat.@allValues", \Query<ModernSetMapMixedObject>.mapFloat.values, Float(5.55444333), notEqualCount: 1)
        validateNumericComparisons("ANY mapFloat.@allValues", \Query<ModernSetMapMixedObject>.mapFloat.values, Float(6.55444333), ltCount: 1)
        validateEquals("ANY mapDouble.@allValues", \Query<ModernSetMapMixedObject>.mapDouble.values, 123.456, notEqualCount: 1)
        validateNumericComparisons("ANY mapDouble.@allValues", \Query<ModernSetMapMixedObject>.mapDouble.values, 234.567, ltCount: 1)
        validateEquals("ANY mapString.@allValues", \Query<ModernSetMapMixedObject>.mapString.values, "Foo", notEqualCount: 1)
        validateStringOperations("ANY mapString.@allValues", \Query<ModernSetMapMixedObject>.mapString.values,
                                 ("Foo", "Foo", "Foo")) { equals, options in
            // Non-enum maps have the keys Foo and Foó, so !=[d] doesn't match any
            if options.contains(.diacriticInsensitive) {
                return equals ? 1 : 0
            }
            return 1
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapString.@allValues LIKE[c] %@)", "Foo", count: 1) {
            $0.mapString.values.like("Foo", caseInsensitive: true)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapString.@allValues LIKE %@)", "Foo", count: 1) {
            $0.mapString.values.like("Foo")
        }
        validateEquals("ANY mapBinary.@allValues", \Query<ModernSetMapMixedObject>.mapBinary.values, Data(count: 64), notEqualCount: 1)
        validateEquals("ANY mapDate.@allValues", \Query<ModernSetMapMixedObject>.mapDate.values, Date(timeIntervalSince1970: 1000000), notEqualCount: 1)
        validateNumericComparisons("ANY mapDate.@allValues", \Query<ModernSetMapMixedObject>.mapDate.values, Date(timeIntervalSince1970: 2000000), ltCount: 1)
        validateEquals("ANY mapDecimal.@allValues", \Query<ModernSetMapMixedObject>.mapDecimal.values, Decimal128(123.456), notEqualCount: 1)
        validateNumericComparisons("ANY mapDecimal.@allValues", \Query<ModernSetMapMixedObject>.mapDecimal.values, Decimal128(234.567), ltCount: 1)
        validateEquals("ANY mapObjectId.@allValues", \Query<ModernSetMapMixedObject>.mapObjectId.values, oid("61184062c1d8f096a3695046"), notEqualCount: 1)
        validateEquals("ANY mapUuid.@allValues", \Query<ModernSetMapMixedObject>.mapUuid.values, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, notEqualCount: 1)
        validateEquals("ANY mapAny.@allValues", \Query<ModernSetMapMixedObject>.mapAny.values, AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), notEqualCount: 1)
        validateEquals("ANY mapOptBool.@allValues", \Query<ModernSetMapMixedObject>.mapOptBool.values, true)
        validateEquals("ANY mapOptInt.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt.values, 1, notEqualCount: 1)
        validateNumericComparisons("ANY mapOptInt.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt.values, 3, ltCount: 1)
        validateEquals("ANY mapOptInt8.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt8.values, Int8(8), notEqualCount: 1)
        validateNumericComparisons("ANY mapOptInt8.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt8.values, Int8(9), ltCount: 1)
        validateEquals("ANY mapOptInt16.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt16.values, Int16(16), notEqualCount: 1)
        validateNumericComparisons("ANY mapOptInt16.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt16.values, Int16(17), ltCount: 1)
        validateEquals("ANY mapOptInt32.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt32.values, Int32(32), notEqualCount: 1)
        validateNumericComparisons("ANY mapOptInt32.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt32.values, Int32(33), ltCount: 1)
        validateEquals("ANY mapOptInt64.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt64.values, Int64(64), notEqualCount: 1)
        validateNumericComparisons("ANY mapOptInt64.@allValues", \Query<ModernSetMapMixedObject>.mapOptInt64.values, Int64(65), ltCount: 1)
        validateEquals("ANY mapOptFloat.@allValues", \Query<ModernSetMapMixedObject>.mapOptFloat.values, Float(5.55444333), notEqualCount: 1)
        validateNumericComparisons("ANY mapOptFloat.@allValues", \Query<ModernSetMapMixedObject>.mapOptFloat.values, Float(6.55444333), ltCount: 1)
        validateEquals("ANY mapOptDouble.@allValues", \Query<ModernSetMapMixedObject>.mapOptDouble.values, 123.456, notEqualCount: 1)
        validateNumericComparisons("ANY mapOptDouble.@allValues", \Query<ModernSetMapMixedObject>.mapOptDouble.values, 234.567, ltCount: 1)
        validateEquals("ANY mapOptString.@allValues", \Query<ModernSetMapMixedObject>.mapOptString.values, "Foo", notEqualCount: 1)
        validateStringOperations("ANY mapOptString.@allValues", \Query<ModernSetMapMixedObject>.mapOptString.values,
                                 ("Foo", "Foo", "Foo")) { equals, options in
            // Non-enum maps have the keys Foo and Foó, so !=[d] doesn't match any
            if options.contains(.diacriticInsensitive) {
                return equals ? 1 : 0
            }
            return 1
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptString.@allValues LIKE[c] %@)", "Foo", count: 1) {
            $0.mapOptString.values.like("Foo", caseInsensitive: true)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptString.@allValues LIKE %@)", "Foo", count: 1) {
            $0.mapOptString.values.like("Foo")
        }
        validateEquals("ANY mapOptBinary.@allValues", \Query<ModernSetMapMixedObject>.mapOptBinary.values, Data(count: 64), notEqualCount: 1)
        validateEquals("ANY mapOptDate.@allValues", \Query<ModernSetMapMixedObject>.mapOptDate.values, Date(timeIntervalSince1970: 1000000), notEqualCount: 1)
        validateNumericComparisons("ANY mapOptDate.@allValues", \Query<ModernSetMapMixedObject>.mapOptDate.values, Date(timeIntervalSince1970: 2000000), ltCount: 1)
        validateEquals("ANY mapOptDecimal.@allValues", \Query<ModernSetMapMixedObject>.mapOptDecimal.values, Decimal128(123.456), notEqualCount: 1)
        validateNumericComparisons("ANY mapOptDecimal.@allValues", \Query<ModernSetMapMixedObject>.mapOptDecimal.values, Decimal128(234.567), ltCount: 1)
        validateEquals("ANY mapOptObjectId.@allValues", \Query<ModernSetMapMixedObject>.mapOptObjectId.values, oid("61184062c1d8f096a3695046"), notEqualCount: 1)
        validateEquals("ANY mapOptUuid.@allValues", \Query<ModernSetMapMixedObject>.mapOptUuid.values, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, notEqualCount: 1)
    }

    @Test func testMapAllKeysAllValuesSubscript() {
        validateMapSubscriptEquality("mapBool", \Query<ModernSetMapMixedObject>.mapBool, value: true)
        validateMapSubscriptEquality("mapInt", \Query<ModernSetMapMixedObject>.mapInt, value: 1)
        validateMapSubscriptNumericComparisons("mapInt", \Query<ModernSetMapMixedObject>.mapInt, value: 1)
        validateMapSubscriptEquality("mapInt8", \Query<ModernSetMapMixedObject>.mapInt8, value: Int8(8))
        validateMapSubscriptNumericComparisons("mapInt8", \Query<ModernSetMapMixedObject>.mapInt8, value: Int8(8))
        validateMapSubscriptEquality("mapInt16", \Query<ModernSetMapMixedObject>.mapInt16, value: Int16(16))
        validateMapSubscriptNumericComparisons("mapInt16", \Query<ModernSetMapMixedObject>.mapInt16, value: Int16(16))
        validateMapSubscriptEquality("mapInt32", \Query<ModernSetMapMixedObject>.mapInt32, value: Int32(32))
        validateMapSubscriptNumericComparisons("mapInt32", \Query<ModernSetMapMixedObject>.mapInt32, value: Int32(32))
        validateMapSubscriptEquality("mapInt64", \Query<ModernSetMapMixedObject>.mapInt64, value: Int64(64))
        validateMapSubscriptNumericComparisons("mapInt64", \Query<ModernSetMapMixedObject>.mapInt64, value: Int64(64))
        validateMapSubscriptEquality("mapFloat", \Query<ModernSetMapMixedObject>.mapFloat, value: Float(5.55444333))
        validateMapSubscriptNumericComparisons("mapFloat", \Query<ModernSetMapMixedObject>.mapFloat, value: Float(5.55444333))
        validateMapSubscriptEquality("mapDouble", \Query<ModernSetMapMixedObject>.mapDouble, value: 123.456)
        validateMapSubscriptNumericComparisons("mapDouble", \Query<ModernSetMapMixedObject>.mapDouble, value: 123.456)
        validateMapSubscriptEquality("mapString", \Query<ModernSetMapMixedObject>.mapString, value: "Foo")
        validateMapSubscriptStringComparisons("mapString", \Query<ModernSetMapMixedObject>.mapString, value: "Foo")
        validateMapSubscriptEquality("mapBinary", \Query<ModernSetMapMixedObject>.mapBinary, value: Data(count: 64))
        validateMapSubscriptEquality("mapDate", \Query<ModernSetMapMixedObject>.mapDate, value: Date(timeIntervalSince1970: 1000000))
        validateMapSubscriptNumericComparisons("mapDate", \Query<ModernSetMapMixedObject>.mapDate, value: Date(timeIntervalSince1970: 1000000))
        validateMapSubscriptEquality("mapDecimal", \Query<ModernSetMapMixedObject>.mapDecimal, value: Decimal128(123.456))
        validateMapSubscriptNumericComparisons("mapDecimal", \Query<ModernSetMapMixedObject>.mapDecimal, value: Decimal128(123.456))
        validateMapSubscriptEquality("mapObjectId", \Query<ModernSetMapMixedObject>.mapObjectId, value: oid("61184062c1d8f096a3695046"))
        validateMapSubscriptEquality("mapUuid", \Query<ModernSetMapMixedObject>.mapUuid, value: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!)
        validateMapSubscriptEquality("mapAny", \Query<ModernSetMapMixedObject>.mapAny, value: AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")))
        validateMapSubscriptEquality("mapOptBool", \Query<ModernSetMapMixedObject>.mapOptBool, value: true)
        validateMapSubscriptEquality("mapOptInt", \Query<ModernSetMapMixedObject>.mapOptInt, value: 1)
        validateMapSubscriptNumericComparisons("mapOptInt", \Query<ModernSetMapMixedObject>.mapOptInt, value: 1)
        validateMapSubscriptEquality("mapOptInt8", \Query<ModernSetMapMixedObject>.mapOptInt8, value: Int8(8))
        validateMapSubscriptNumericComparisons("mapOptInt8", \Query<ModernSetMapMixedObject>.mapOptInt8, value: Int8(8))
        validateMapSubscriptEquality("mapOptInt16", \Query<ModernSetMapMixedObject>.mapOptInt16, value: Int16(16))
        validateMapSubscriptNumericComparisons("mapOptInt16", \Query<ModernSetMapMixedObject>.mapOptInt16, value: Int16(16))
        validateMapSubscriptEquality("mapOptInt32", \Query<ModernSetMapMixedObject>.mapOptInt32, value: Int32(32))
        validateMapSubscriptNumericComparisons("mapOptInt32", \Query<ModernSetMapMixedObject>.mapOptInt32, value: Int32(32))
        validateMapSubscriptEquality("mapOptInt64", \Query<ModernSetMapMixedObject>.mapOptInt64, value: Int64(64))
        validateMapSubscriptNumericComparisons("mapOptInt64", \Query<ModernSetMapMixedObject>.mapOptInt64, value: Int64(64))
        validateMapSubscriptEquality("mapOptFloat", \Query<ModernSetMapMixedObject>.mapOptFloat, value: Float(5.55444333))
        validateMapSubscriptNumericComparisons("mapOptFloat", \Query<ModernSetMapMixedObject>.mapOptFloat, value: Float(5.55444333))
        validateMapSubscriptEquality("mapOptDouble", \Query<ModernSetMapMixedObject>.mapOptDouble, value: 123.456)
        validateMapSubscriptNumericComparisons("mapOptDouble", \Query<ModernSetMapMixedObject>.mapOptDouble, value: 123.456)
        validateMapSubscriptEquality("mapOptString", \Query<ModernSetMapMixedObject>.mapOptString, value: "Foo")
        validateMapSubscriptStringComparisons("mapOptString", \Query<ModernSetMapMixedObject>.mapOptString, value: "Foo")
        validateMapSubscriptEquality("mapOptBinary", \Query<ModernSetMapMixedObject>.mapOptBinary, value: Data(count: 64))
        validateMapSubscriptEquality("mapOptDate", \Query<ModernSetMapMixedObject>.mapOptDate, value: Date(timeIntervalSince1970: 1000000))
        validateMapSubscriptNumericComparisons("mapOptDate", \Query<ModernSetMapMixedObject>.mapOptDate, value: Date(timeIntervalSince1970: 1000000))
        validateMapSubscriptEquality("mapOptDecimal", \Query<ModernSetMapMixedObject>.mapOptDecimal, value: Decimal128(123.456))
        validateMapSubscriptNumericComparisons("mapOptDecimal", \Query<ModernSetMapMixedObject>.mapOptDecimal, value: Decimal128(123.456))
        validateMapSubscriptEquality("mapOptObjectId", \Query<ModernSetMapMixedObject>.mapOptObjectId, value: oid("61184062c1d8f096a3695046"))
        validateMapSubscriptEquality("mapOptUuid", \Query<ModernSetMapMixedObject>.mapOptUuid, value: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!)
    }

    @Test func testMapContainsAnyInObject() {
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapBool IN %@)",
                    values: [NSArray(array: [true, true])], count: 1) {
            $0.mapBool.containsAny(in: [true, true])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapInt IN %@)",
                    values: [NSArray(array: [1, 3])], count: 1) {
            $0.mapInt.containsAny(in: [1, 3])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapInt8 IN %@)",
                    values: [NSArray(array: [Int8(8), Int8(9)])], count: 1) {
            $0.mapInt8.containsAny(in: [Int8(8), Int8(9)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapInt16 IN %@)",
                    values: [NSArray(array: [Int16(16), Int16(17)])], count: 1) {
            $0.mapInt16.containsAny(in: [Int16(16), Int16(17)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapInt32 IN %@)",
                    values: [NSArray(array: [Int32(32), Int32(33)])], count: 1) {
            $0.mapInt32.containsAny(in: [Int32(32), Int32(33)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapInt64 IN %@)",
                    values: [NSArray(array: [Int64(64), Int64(65)])], count: 1) {
            $0.mapInt64.containsAny(in: [Int64(64), Int64(65)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapFloat IN %@)",
                    values: [NSArray(array: [Float(5.55444333), Float(6.55444333)])], count: 1) {
            $0.mapFloat.containsAny(in: [Float(5.55444333), Float(6.55444333)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapDouble IN %@)",
                    values: [NSArray(array: [123.456, 234.567])], count: 1) {
            $0.mapDouble.containsAny(in: [123.456, 234.567])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapString IN %@)",
                    values: [NSArray(array: ["Foo", "Foó"])], count: 1) {
            $0.mapString.containsAny(in: ["Foo", "Foó"])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapBinary IN %@)",
                    values: [NSArray(array: [Data(count: 64), Data(count: 128)])], count: 1) {
            $0.mapBinary.containsAny(in: [Data(count: 64), Data(count: 128)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapDate IN %@)",
                    values: [NSArray(array: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])], count: 1) {
            $0.mapDate.containsAny(in: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapDecimal IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.mapDecimal.containsAny(in: [Decimal128(123.456), Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapObjectId IN %@)",
                    values: [NSArray(array: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])], count: 1) {
            $0.mapObjectId.containsAny(in: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapUuid IN %@)",
                    values: [NSArray(array: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])], count: 1) {
            $0.mapUuid.containsAny(in: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapAny IN %@)",
                    values: [NSArray(array: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])], count: 1) {
            $0.mapAny.containsAny(in: [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello")])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptBool IN %@)",
                    values: [NSArray(array: [true, true])], count: 1) {
            $0.mapOptBool.containsAny(in: [true, true])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptInt IN %@)",
                    values: [NSArray(array: [1, 3])], count: 1) {
            $0.mapOptInt.containsAny(in: [1, 3])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptInt8 IN %@)",
                    values: [NSArray(array: [Int8(8), Int8(9)])], count: 1) {
            $0.mapOptInt8.containsAny(in: [Int8(8), Int8(9)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptInt16 IN %@)",
                    values: [NSArray(array: [Int16(16), Int16(17)])], count: 1) {
            $0.mapOptInt16.containsAny(in: [Int16(16), Int16(17)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptInt32 IN %@)",
                    values: [NSArray(array: [Int32(32), Int32(33)])], count: 1) {
            $0.mapOptInt32.containsAny(in: [Int32(32), Int32(33)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptInt64 IN %@)",
                    values: [NSArray(array: [Int64(64), Int64(65)])], count: 1) {
            $0.mapOptInt64.containsAny(in: [Int64(64), Int64(65)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptFloat IN %@)",
                    values: [NSArray(array: [Float(5.55444333), Float(6.55444333)])], count: 1) {
            $0.mapOptFloat.containsAny(in: [Float(5.55444333), Float(6.55444333)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptDouble IN %@)",
                    values: [NSArray(array: [123.456, 234.567])], count: 1) {
            $0.mapOptDouble.containsAny(in: [123.456, 234.567])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptString IN %@)",
                    values: [NSArray(array: ["Foo", "Foó"])], count: 1) {
            $0.mapOptString.containsAny(in: ["Foo", "Foó"])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptBinary IN %@)",
                    values: [NSArray(array: [Data(count: 64), Data(count: 128)])], count: 1) {
            $0.mapOptBinary.containsAny(in: [Data(count: 64), Data(count: 128)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptDate IN %@)",
                    values: [NSArray(array: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])], count: 1) {
            $0.mapOptDate.containsAny(in: [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptDecimal IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.mapOptDecimal.containsAny(in: [Decimal128(123.456), Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptObjectId IN %@)",
                    values: [NSArray(array: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])], count: 1) {
            $0.mapOptObjectId.containsAny(in: [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045")])
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY mapOptUuid IN %@)",
                    values: [NSArray(array: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])], count: 1) {
            $0.mapOptUuid.containsAny(in: [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!])
        }
    }

    @Test func testCompoundAnd() {
        let summapInt = 1 + 3
        let summapOptInt = 1 + 3
        assertQuery("((((((mapInt.@min <= %@) && (mapInt.@max >= %@)) && (mapInt.@sum == %@)) && (mapInt.@count != %@)) && (mapInt.@avg > %@)) && (mapInt.@avg < %@))",
                    values: [1, 3, summapInt, 0, 1, 3], count: 1) {
            ($0.mapInt.min <= 1) &&
            ($0.mapInt.max >= 3) &&
            ($0.mapInt.sum == summapInt) &&
            ($0.mapInt.count != 0) &&
            ($0.mapInt.avg > 1) &&
            ($0.mapInt.avg < 3)
        }
        assertQuery("((((((mapOptInt.@min <= %@) && (mapOptInt.@max >= %@)) && (mapOptInt.@sum == %@)) && (mapOptInt.@count != %@)) && (mapOptInt.@avg > %@)) && (mapOptInt.@avg < %@))",
                    values: [1, 3, summapOptInt, 0, 1, 3], count: 1) {
            ($0.mapOptInt.min <= 1) &&
            ($0.mapOptInt.max >= 3) &&
            ($0.mapOptInt.sum == summapOptInt) &&
            ($0.mapOptInt.count != 0) &&
            ($0.mapOptInt.avg > 1) &&
            ($0.mapOptInt.avg < 3)
        }
    }

    @Test func testCompoundMixed() {
        let summapInt = 1 + 3
        let summapOptInt = 1 + 3
        assertQuery("(((((mapInt.@min <= %@) || (mapInt.@max >= %@)) && (mapInt.@sum == %@)) && (mapInt.@count != %@)) && ((mapInt.@avg > %@) && (mapInt.@avg < %@)))",
                    values: [1, 5, summapInt, 0, 1, 5], count: 1) {
            (($0.mapInt.min <= 1) || ($0.mapInt.max >= 5)) &&
            ($0.mapInt.sum == summapInt) &&
            ($0.mapInt.count != 0) &&
            ($0.mapInt.avg > 1 && $0.mapInt.avg < 5)
        }
        assertQuery("(((((mapOptInt.@min <= %@) || (mapOptInt.@max >= %@)) && (mapOptInt.@sum == %@)) && (mapOptInt.@count != %@)) && ((mapOptInt.@avg > %@) && (mapOptInt.@avg < %@)))",
                    values: [1, 5, summapOptInt, 0, 1, 5], count: 1) {
            (($0.mapOptInt.min <= 1) || ($0.mapOptInt.max >= 5)) &&
            ($0.mapOptInt.sum == summapOptInt) &&
            ($0.mapOptInt.count != 0) &&
            ($0.mapOptInt.avg > 1 && $0.mapOptInt.avg < 5)
        }
    }

    @Test func testAny() {
        assertQuery(ModernSetMapMixedObject.self, "(ANY arrayDecimal == %@)", Decimal128(123.456), count: 1) {
            $0.arrayDecimal == Decimal128(123.456)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY arrayAny == %@)", AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), count: 1) {
            $0.arrayAny == AnyRealmValue.objectId(oid("61184062c1d8f096a3695046"))
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY arrayOptDecimal == %@)", Decimal128(123.456), count: 1) {
            $0.arrayOptDecimal == Decimal128(123.456)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setBool == %@)", true, count: 1) {
            $0.setBool == true
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt == %@)", 1, count: 1) {
            $0.setInt == 1
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt8 == %@)", Int8(8), count: 1) {
            $0.setInt8 == Int8(8)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt16 == %@)", Int16(16), count: 1) {
            $0.setInt16 == Int16(16)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt32 == %@)", Int32(32), count: 1) {
            $0.setInt32 == Int32(32)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setInt64 == %@)", Int64(64), count: 1) {
            $0.setInt64 == Int64(64)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setFloat == %@)", Float(5.55444333), count: 1) {
            $0.setFloat == Float(5.55444333)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setDouble == %@)", 123.456, count: 1) {
            $0.setDouble == 123.456
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setString == %@)", "Foo", count: 1) {
            $0.setString == "Foo"
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setBinary == %@)", Data(count: 64), count: 1) {
            $0.setBinary == Data(count: 64)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setDate == %@)", Date(timeIntervalSince1970: 1000000), count: 1) {
            $0.setDate == Date(timeIntervalSince1970: 1000000)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setDecimal == %@)", Decimal128(123.456), count: 1) {
            $0.setDecimal == Decimal128(123.456)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setObjectId == %@)", oid("61184062c1d8f096a3695046"), count: 1) {
            $0.setObjectId == oid("61184062c1d8f096a3695046")
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setUuid == %@)", UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, count: 1) {
            $0.setUuid == UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setAny == %@)", AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), count: 1) {
            $0.setAny == AnyRealmValue.objectId(oid("61184062c1d8f096a3695046"))
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptBool == %@)", true, count: 1) {
            $0.setOptBool == true
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt == %@)", 1, count: 1) {
            $0.setOptInt == 1
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt8 == %@)", Int8(8), count: 1) {
            $0.setOptInt8 == Int8(8)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt16 == %@)", Int16(16), count: 1) {
            $0.setOptInt16 == Int16(16)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt32 == %@)", Int32(32), count: 1) {
            $0.setOptInt32 == Int32(32)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptInt64 == %@)", Int64(64), count: 1) {
            $0.setOptInt64 == Int64(64)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptFloat == %@)", Float(5.55444333), count: 1) {
            $0.setOptFloat == Float(5.55444333)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptDouble == %@)", 123.456, count: 1) {
            $0.setOptDouble == 123.456
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptString == %@)", "Foo", count: 1) {
            $0.setOptString == "Foo"
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptBinary == %@)", Data(count: 64), count: 1) {
            $0.setOptBinary == Data(count: 64)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptDate == %@)", Date(timeIntervalSince1970: 1000000), count: 1) {
            $0.setOptDate == Date(timeIntervalSince1970: 1000000)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptDecimal == %@)", Decimal128(123.456), count: 1) {
            $0.setOptDecimal == Decimal128(123.456)
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptObjectId == %@)", oid("61184062c1d8f096a3695046"), count: 1) {
            $0.setOptObjectId == oid("61184062c1d8f096a3695046")
        }
        assertQuery(ModernSetMapMixedObject.self, "(ANY setOptUuid == %@)", UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, count: 1) {
            $0.setOptUuid == UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!
        }
    }

    @Test func testContainsIn() {
        assertQuery(ModernSetMapMixedObject.self, "(decimalCol IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.decimalCol.in([Decimal128(123.456), Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(NOT decimalCol IN %@)",
                    values: [NSArray(array: [Decimal128(234.567)])], count: 0) {
            !$0.decimalCol.in([Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(optDecimalCol IN %@)",
                    values: [NSArray(array: [Decimal128(123.456), Decimal128(234.567)])], count: 1) {
            $0.optDecimalCol.in([Decimal128(123.456), Decimal128(234.567)])
        }
        assertQuery(ModernSetMapMixedObject.self, "(NOT optDecimalCol IN %@)",
                    values: [NSArray(array: [Decimal128(234.567)])], count: 0) {
            !$0.optDecimalCol.in([Decimal128(234.567)])
        }
    }

    @Test func testCollectionAggregatesAvg() {
        initLinkedCollectionAggregatesObject()
        validateAverage("arrayDecimal", Decimal128.setMapAverage(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayDecimal)
        validateAverage("arrayOptDecimal", Decimal128?.setMapAverage(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayOptDecimal)
        validateAverage("setInt", Int.setMapAverage(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.setInt)
        validateAverage("setInt8", Int8.setMapAverage(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt8)
        validateAverage("setInt16", Int16.setMapAverage(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt16)
        validateAverage("setInt32", Int32.setMapAverage(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt32)
        validateAverage("setInt64", Int64.setMapAverage(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt64)
        validateAverage("setFloat", Float.setMapAverage(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setFloat)
        validateAverage("setDouble", Double.setMapAverage(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.setDouble)
        validateAverage("setDecimal", Decimal128.setMapAverage(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.setDecimal)
        validateAverage("setOptInt", Int?.setMapAverage(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt)
        validateAverage("setOptInt8", Int8?.setMapAverage(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt8)
        validateAverage("setOptInt16", Int16?.setMapAverage(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt16)
        validateAverage("setOptInt32", Int32?.setMapAverage(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt32)
        validateAverage("setOptInt64", Int64?.setMapAverage(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt64)
        validateAverage("setOptFloat", Float?.setMapAverage(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptFloat)
        validateAverage("setOptDouble", Double?.setMapAverage(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDouble)
        validateAverage("setOptDecimal", Decimal128?.setMapAverage(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDecimal)
        validateAverage("mapInt", Int.setMapAverage(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt)
        validateAverage("mapInt8", Int8.setMapAverage(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt8)
        validateAverage("mapInt16", Int16.setMapAverage(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt16)
        validateAverage("mapInt32", Int32.setMapAverage(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt32)
        validateAverage("mapInt64", Int64.setMapAverage(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt64)
        validateAverage("mapFloat", Float.setMapAverage(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapFloat)
        validateAverage("mapDouble", Double.setMapAverage(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.mapDouble)
        validateAverage("mapDecimal", Decimal128.setMapAverage(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.mapDecimal)
        validateAverage("mapOptInt", Int?.setMapAverage(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt)
        validateAverage("mapOptInt8", Int8?.setMapAverage(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt8)
        validateAverage("mapOptInt16", Int16?.setMapAverage(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt16)
        validateAverage("mapOptInt32", Int32?.setMapAverage(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt32)
        validateAverage("mapOptInt64", Int64?.setMapAverage(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt64)
        validateAverage("mapOptFloat", Float?.setMapAverage(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptFloat)
        validateAverage("mapOptDouble", Double?.setMapAverage(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDouble)
        validateAverage("mapOptDecimal", Decimal128?.setMapAverage(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDecimal)
    }

    @Test func testCollectionAggregatesSum() {
        initLinkedCollectionAggregatesObject()
        validateSum("arrayDecimal", Decimal128.setMapSum(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayDecimal)
        validateSum("arrayOptDecimal", Decimal128?.setMapSum(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayOptDecimal)
        validateSum("setInt", Int.setMapSum(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.setInt)
        validateSum("setInt8", Int8.setMapSum(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt8)
        validateSum("setInt16", Int16.setMapSum(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt16)
        validateSum("setInt32", Int32.setMapSum(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt32)
        validateSum("setInt64", Int64.setMapSum(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt64)
        validateSum("setFloat", Float.setMapSum(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setFloat)
        validateSum("setDouble", Double.setMapSum(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.setDouble)
        validateSum("setDecimal", Decimal128.setMapSum(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.setDecimal)
        validateSum("setOptInt", Int?.setMapSum(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt)
        validateSum("setOptInt8", Int8?.setMapSum(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt8)
        validateSum("setOptInt16", Int16?.setMapSum(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt16)
        validateSum("setOptInt32", Int32?.setMapSum(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt32)
        validateSum("setOptInt64", Int64?.setMapSum(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt64)
        validateSum("setOptFloat", Float?.setMapSum(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptFloat)
        validateSum("setOptDouble", Double?.setMapSum(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDouble)
        validateSum("setOptDecimal", Decimal128?.setMapSum(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDecimal)
        validateSum("mapInt", Int.setMapSum(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt)
        validateSum("mapInt8", Int8.setMapSum(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt8)
        validateSum("mapInt16", Int16.setMapSum(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt16)
        validateSum("mapInt32", Int32.setMapSum(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt32)
        validateSum("mapInt64", Int64.setMapSum(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt64)
        validateSum("mapFloat", Float.setMapSum(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapFloat)
        validateSum("mapDouble", Double.setMapSum(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.mapDouble)
        validateSum("mapDecimal", Decimal128.setMapSum(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.mapDecimal)
        validateSum("mapOptInt", Int?.setMapSum(), 1,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt)
        validateSum("mapOptInt8", Int8?.setMapSum(), Int8(8),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt8)
        validateSum("mapOptInt16", Int16?.setMapSum(), Int16(16),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt16)
        validateSum("mapOptInt32", Int32?.setMapSum(), Int32(32),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt32)
        validateSum("mapOptInt64", Int64?.setMapSum(), Int64(64),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt64)
        validateSum("mapOptFloat", Float?.setMapSum(), Float(5.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptFloat)
        validateSum("mapOptDouble", Double?.setMapSum(), 123.456,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDouble)
        validateSum("mapOptDecimal", Decimal128?.setMapSum(), Decimal128(123.456),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDecimal)
    }

    @Test func testCollectionAggregatesMin() {
        initLinkedCollectionAggregatesObject()
        validateMin("arrayDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayDecimal)
        validateMin("arrayOptDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayOptDecimal)
        validateMin("setInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.setInt)
        validateMin("setInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt8)
        validateMin("setInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt16)
        validateMin("setInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt32)
        validateMin("setInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt64)
        validateMin("setFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setFloat)
        validateMin("setDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.setDouble)
        validateMin("setDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.setDecimal)
        validateMin("setOptInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt)
        validateMin("setOptInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt8)
        validateMin("setOptInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt16)
        validateMin("setOptInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt32)
        validateMin("setOptInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt64)
        validateMin("setOptFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptFloat)
        validateMin("setOptDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDouble)
        validateMin("setOptDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDecimal)
        validateMin("mapInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt)
        validateMin("mapInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt8)
        validateMin("mapInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt16)
        validateMin("mapInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt32)
        validateMin("mapInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt64)
        validateMin("mapFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapFloat)
        validateMin("mapDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.mapDouble)
        validateMin("mapDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.mapDecimal)
        validateMin("mapOptInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt)
        validateMin("mapOptInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt8)
        validateMin("mapOptInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt16)
        validateMin("mapOptInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt32)
        validateMin("mapOptInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt64)
        validateMin("mapOptFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptFloat)
        validateMin("mapOptDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDouble)
        validateMin("mapOptDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDecimal)
    }

    @Test func testCollectionAggregatesMax() {
        initLinkedCollectionAggregatesObject()
        validateMax("arrayDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayDecimal)
        validateMax("arrayOptDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.arrayOptDecimal)
        validateMax("setInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.setInt)
        validateMax("setInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt8)
        validateMax("setInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt16)
        validateMax("setInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt32)
        validateMax("setInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.setInt64)
        validateMax("setFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setFloat)
        validateMax("setDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.setDouble)
        validateMax("setDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.setDecimal)
        validateMax("setOptInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt)
        validateMax("setOptInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt8)
        validateMax("setOptInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt16)
        validateMax("setOptInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt32)
        validateMax("setOptInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptInt64)
        validateMax("setOptFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptFloat)
        validateMax("setOptDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDouble)
        validateMax("setOptDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.setOptDecimal)
        validateMax("mapInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt)
        validateMax("mapInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt8)
        validateMax("mapInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt16)
        validateMax("mapInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt32)
        validateMax("mapInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.mapInt64)
        validateMax("mapFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapFloat)
        validateMax("mapDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.mapDouble)
        validateMax("mapDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.mapDecimal)
        validateMax("mapOptInt", min: 1, max: 5,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt)
        validateMax("mapOptInt8", min: Int8(8), max: Int8(10),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt8)
        validateMax("mapOptInt16", min: Int16(16), max: Int16(18),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt16)
        validateMax("mapOptInt32", min: Int32(32), max: Int32(34),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt32)
        validateMax("mapOptInt64", min: Int64(64), max: Int64(66),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptInt64)
        validateMax("mapOptFloat", min: Float(5.55444333), max: Float(7.55444333),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptFloat)
        validateMax("mapOptDouble", min: 123.456, max: 345.678,
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDouble)
        validateMax("mapOptDecimal", min: Decimal128(123.456), max: Decimal128(345.678),
                    \Query<LinkToModernSetMapMixedObject>.object.mapOptDecimal)
    }

    @Test func testCollectionAggregatesCount() {
        initLinkedCollectionAggregatesObject()
        validateCount("arrayDecimal", \Query<LinkToModernSetMapMixedObject>.object.arrayDecimal)
        validateCount("arrayAny", \Query<LinkToModernSetMapMixedObject>.object.arrayAny)
        validateCount("arrayOptDecimal", \Query<LinkToModernSetMapMixedObject>.object.arrayOptDecimal)
        validateCount("setInt", \Query<LinkToModernSetMapMixedObject>.object.setInt)
        validateCount("setInt8", \Query<LinkToModernSetMapMixedObject>.object.setInt8)
        validateCount("setInt16", \Query<LinkToModernSetMapMixedObject>.object.setInt16)
        validateCount("setInt32", \Query<LinkToModernSetMapMixedObject>.object.setInt32)
        validateCount("setInt64", \Query<LinkToModernSetMapMixedObject>.object.setInt64)
        validateCount("setFloat", \Query<LinkToModernSetMapMixedObject>.object.setFloat)
        validateCount("setDouble", \Query<LinkToModernSetMapMixedObject>.object.setDouble)
        validateCount("setString", \Query<LinkToModernSetMapMixedObject>.object.setString)
        validateCount("setBinary", \Query<LinkToModernSetMapMixedObject>.object.setBinary)
        validateCount("setDate", \Query<LinkToModernSetMapMixedObject>.object.setDate)
        validateCount("setDecimal", \Query<LinkToModernSetMapMixedObject>.object.setDecimal)
        validateCount("setObjectId", \Query<LinkToModernSetMapMixedObject>.object.setObjectId)
        validateCount("setUuid", \Query<LinkToModernSetMapMixedObject>.object.setUuid)
        validateCount("setAny", \Query<LinkToModernSetMapMixedObject>.object.setAny)
        validateCount("setOptInt", \Query<LinkToModernSetMapMixedObject>.object.setOptInt)
        validateCount("setOptInt8", \Query<LinkToModernSetMapMixedObject>.object.setOptInt8)
        validateCount("setOptInt16", \Query<LinkToModernSetMapMixedObject>.object.setOptInt16)
        validateCount("setOptInt32", \Query<LinkToModernSetMapMixedObject>.object.setOptInt32)
        validateCount("setOptInt64", \Query<LinkToModernSetMapMixedObject>.object.setOptInt64)
        validateCount("setOptFloat", \Query<LinkToModernSetMapMixedObject>.object.setOptFloat)
        validateCount("setOptDouble", \Query<LinkToModernSetMapMixedObject>.object.setOptDouble)
        validateCount("setOptString", \Query<LinkToModernSetMapMixedObject>.object.setOptString)
        validateCount("setOptBinary", \Query<LinkToModernSetMapMixedObject>.object.setOptBinary)
        validateCount("setOptDate", \Query<LinkToModernSetMapMixedObject>.object.setOptDate)
        validateCount("setOptDecimal", \Query<LinkToModernSetMapMixedObject>.object.setOptDecimal)
        validateCount("setOptObjectId", \Query<LinkToModernSetMapMixedObject>.object.setOptObjectId)
        validateCount("setOptUuid", \Query<LinkToModernSetMapMixedObject>.object.setOptUuid)
        validateCount("mapInt", \Query<LinkToModernSetMapMixedObject>.object.mapInt)
        validateCount("mapInt8", \Query<LinkToModernSetMapMixedObject>.object.mapInt8)
        validateCount("mapInt16", \Query<LinkToModernSetMapMixedObject>.object.mapInt16)
        validateCount("mapInt32", \Query<LinkToModernSetMapMixedObject>.object.mapInt32)
        validateCount("mapInt64", \Query<LinkToModernSetMapMixedObject>.object.mapInt64)
        validateCount("mapFloat", \Query<LinkToModernSetMapMixedObject>.object.mapFloat)
        validateCount("mapDouble", \Query<LinkToModernSetMapMixedObject>.object.mapDouble)
        validateCount("mapString", \Query<LinkToModernSetMapMixedObject>.object.mapString)
        validateCount("mapBinary", \Query<LinkToModernSetMapMixedObject>.object.mapBinary)
        validateCount("mapDate", \Query<LinkToModernSetMapMixedObject>.object.mapDate)
        validateCount("mapDecimal", \Query<LinkToModernSetMapMixedObject>.object.mapDecimal)
        validateCount("mapObjectId", \Query<LinkToModernSetMapMixedObject>.object.mapObjectId)
        validateCount("mapUuid", \Query<LinkToModernSetMapMixedObject>.object.mapUuid)
        validateCount("mapAny", \Query<LinkToModernSetMapMixedObject>.object.mapAny)
        validateCount("mapOptInt", \Query<LinkToModernSetMapMixedObject>.object.mapOptInt)
        validateCount("mapOptInt8", \Query<LinkToModernSetMapMixedObject>.object.mapOptInt8)
        validateCount("mapOptInt16", \Query<LinkToModernSetMapMixedObject>.object.mapOptInt16)
        validateCount("mapOptInt32", \Query<LinkToModernSetMapMixedObject>.object.mapOptInt32)
        validateCount("mapOptInt64", \Query<LinkToModernSetMapMixedObject>.object.mapOptInt64)
        validateCount("mapOptFloat", \Query<LinkToModernSetMapMixedObject>.object.mapOptFloat)
        validateCount("mapOptDouble", \Query<LinkToModernSetMapMixedObject>.object.mapOptDouble)
        validateCount("mapOptString", \Query<LinkToModernSetMapMixedObject>.object.mapOptString)
        validateCount("mapOptBinary", \Query<LinkToModernSetMapMixedObject>.object.mapOptBinary)
        validateCount("mapOptDate", \Query<LinkToModernSetMapMixedObject>.object.mapOptDate)
        validateCount("mapOptDecimal", \Query<LinkToModernSetMapMixedObject>.object.mapOptDecimal)
        validateCount("mapOptObjectId", \Query<LinkToModernSetMapMixedObject>.object.mapOptObjectId)
        validateCount("mapOptUuid", \Query<LinkToModernSetMapMixedObject>.object.mapOptUuid)
    }

}

private protocol SetMapQueryValue {
    static func setMapQueryValues() -> [Self]
}

extension Bool: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Bool] {
        return [true, true, false]
    }
}
extension Int: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Int] {
        return [1, 3, 5]
    }
}
extension Int8: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Int8] {
        return [Int8(8), Int8(9), Int8(10)]
    }
}
extension Int16: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Int16] {
        return [Int16(16), Int16(17), Int16(18)]
    }
}
extension Int32: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Int32] {
        return [Int32(32), Int32(33), Int32(34)]
    }
}
extension Int64: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Int64] {
        return [Int64(64), Int64(65), Int64(66)]
    }
}
extension Float: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Float] {
        return [Float(5.55444333), Float(6.55444333), Float(7.55444333)]
    }
}
extension Double: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Double] {
        return [123.456, 234.567, 345.678]
    }
}
extension String: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [String] {
        return ["Foo", "Foó", "foo"]
    }
}
extension Data: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Data] {
        return [Data(count: 64), Data(count: 128), Data(count: 256)]
    }
}
extension Date: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Date] {
        return [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000), Date(timeIntervalSince1970: 3000000)]
    }
}
extension ObjectId: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [ObjectId] {
        return [oid("61184062c1d8f096a3695046"), oid("61184062c1d8f096a3695045"), oid("61184062c1d8f096a3695044")]
    }
}
extension UUID: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [UUID] {
        return [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d08e")!]
    }
}
extension Optional: SetMapQueryValue where Wrapped: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Self] {
        return Wrapped.setMapQueryValues().map { Optional($0) }
    }
}
extension Decimal128: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [Decimal128] {
        return [Decimal128(123.456), Decimal128(234.567), Decimal128(345.678)]
    }
}
extension AnyRealmValue: SetMapQueryValue {
    fileprivate static func setMapQueryValues() -> [AnyRealmValue] {
        return [AnyRealmValue.objectId(oid("61184062c1d8f096a3695046")), AnyRealmValue.string("Hello"), AnyRealmValue.int(123)]
    }
}
private protocol SetMapAddable {
    associatedtype SetMapSumType
    static func setMapSum() -> SetMapSumType
    static func setMapAverage() -> SetMapSumType
}

extension Int: SetMapAddable {
    fileprivate typealias SetMapSumType = Int
    fileprivate static func setMapSum() -> SetMapSumType {
        return 1 + 3 + 5
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum() / 3
    }
}
extension Int8: SetMapAddable {
    fileprivate typealias SetMapSumType = Int8
    fileprivate static func setMapSum() -> SetMapSumType {
        return Int8(8) + Int8(9) + Int8(10)
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum() / 3
    }
}
extension Int16: SetMapAddable {
    fileprivate typealias SetMapSumType = Int16
    fileprivate static func setMapSum() -> SetMapSumType {
        return Int16(16) + Int16(17) + Int16(18)
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum() / 3
    }
}
extension Int32: SetMapAddable {
    fileprivate typealias SetMapSumType = Int32
    fileprivate static func setMapSum() -> SetMapSumType {
        return Int32(32) + Int32(33) + Int32(34)
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum() / 3
    }
}
extension Int64: SetMapAddable {
    fileprivate typealias SetMapSumType = Int64
    fileprivate static func setMapSum() -> SetMapSumType {
        return Int64(64) + Int64(65) + Int64(66)
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum() / 3
    }
}
extension Float: SetMapAddable {
    fileprivate typealias SetMapSumType = Float
    fileprivate static func setMapSum() -> SetMapSumType {
        return Float(5.55444333) + Float(6.55444333) + Float(7.55444333)
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum() / 3
    }
}
extension Double: SetMapAddable {
    fileprivate typealias SetMapSumType = Double
    fileprivate static func setMapSum() -> SetMapSumType {
        return 123.456 + 234.567 + 345.678
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum() / 3
    }
}
extension Decimal128: SetMapAddable {
    fileprivate typealias SetMapSumType = Decimal128
    fileprivate static func setMapSum() -> SetMapSumType {
        return Decimal128(123.456) + Decimal128(234.567) + Decimal128(345.678)
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return setMapSum().divided(by: 3)
    }
}
extension Optional: SetMapAddable where Wrapped: SetMapAddable {
    fileprivate typealias SetMapSumType = Optional<Wrapped.SetMapSumType>
    fileprivate static func setMapSum() -> SetMapSumType {
        return .some(Wrapped.setMapSum())
    }
    fileprivate static func setMapAverage() -> SetMapSumType {
        return .some(Wrapped.setMapAverage())
    }
}
