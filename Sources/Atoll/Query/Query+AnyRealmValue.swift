import Foundation

// Type-safe queries into the collections nested in an `AnyRealmValue` (Realm 10.51+), written
// as RealmSwift's `Query` writes them, so `_constructPredicate()` gives RealmSwift's text:
//
// | Swift | Query language |
// |---|---|
// | `$0.value[0] == .int(1)` | `(value[%@] == %@)` with the position as an argument |
// | `$0.value["key"] == .int(1)` | `(value[%@] == %@)` with the key as an argument |
// | `$0.value.any == .int(1)` | `(value[%K] == %@)` with the argument `#any`: `value[*]` |
// | `$0.value[0]["key"].any > .int(1)` | `(value[%@][%@][%K] > %@)` |
//
// A position or key that is not there, or a value that is no collection, reads as nil (and
// `.any` over it as no value), as in realm-core; `.any` compares with ANY.

extension Query where T == AnyRealmValue {
    /// The element at `position` of the list nested in this value (nil when there is none).
    public subscript(position: Int) -> Query<AnyRealmValue> {
        .init(appendingMixedSubscript(.index(position)))
    }

    /// The value under `key` of the dictionary nested in this value (nil when there is none).
    /// `"#any"` is an ordinary key here; use ``any`` for every value.
    public subscript(key: String) -> Query<AnyRealmValue> {
        .init(appendingMixedSubscript(.key(key)))
    }

    /// Every element of the list, or every value of the dictionary, nested in this value
    /// (`value[*]`), compared with ANY: `$0.value.any == .string("x")`.
    public var any: Query<AnyRealmValue> {
        .init(appendingMixedSubscript(.all))
    }

    private func appendingMixedSubscript(_ s: MixedSubscript) -> QueryNode {
        switch node {
        case .keyPath:
            return .mixedSubscripts(withoutAny(), [s])
        case .mixedSubscripts(let value, let subscripts):
            return .mixedSubscripts(value, subscripts + [s])
        case .invalid:
            return node
        default:
            var builder = QueryPredicateBuilder()
            builder.build(node, isNewNode: true)
            return .invalid("Cannot add subscript to \(builder.format)")
        }
    }
}
