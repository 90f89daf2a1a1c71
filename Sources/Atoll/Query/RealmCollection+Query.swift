// Type-safe queries on live collections: `where { }` and `index(matching:)`, as in RealmSwift.
// RealmSwift has no `filter { }` taking a `Query`: on its collections `filter { $0.x == 1 }` is
// the standard library's `Sequence.filter`, returning an array, and so it is here.

extension Results {
    /// The objects matching a type-safe query, as live `Results` in this order.
    ///
    /// ```swift
    /// let adults = realm.objects(Person.self).where { $0.age >= 18 && $0.dogs.count > 0 }
    /// ```
    /// The query is written as predicate text and bound like `filter(_:_:)` (see `Query`);
    /// an invalid one is a programming error, as in RealmSwift (where it raises an exception);
    /// `whereThrowing(_:)` throws it instead.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        do { return try whereThrowing(isIncluded) } catch {
            atollProgrammerError("invalid query: \(error)")
        }
    }

    /// Like `where(_:)`, throwing `AtollError.invalidQuery` for a query RealmSwift refuses
    /// (`$0.map["k"].name`: "Cannot apply key path to Map subscripts.") or that does not bind
    /// (an Atoll addition, as `filter(throwing:_:)` is for string queries).
    public func whereThrowing(_ isIncluded: (Query<Element>) -> Query<Bool>) throws -> Results<Element> {
        let (format, arguments) = try isIncluded(Query<Element>()).predicate()
        return try filter(throwing: format, arguments)
    }

    /// The position of the first object matching a type-safe query, or nil.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        let matching: Results<Element>
        do { matching = try whereThrowing(isIncluded) } catch {
            atollProgrammerError("invalid query: \(error)")
        }
        // Filtering keeps this order, so the first match is the first in this order.
        guard let first = matching.core.keys().first else { return nil }
        return core.keys().firstIndex(of: first)
    }
}

extension RealmCollection {
    /// The collection's objects as `Results`, in its order.
    var queryBase: Results<Element> {
        if let results = self as? Results<Element> { return results }
        return filter("TRUEPREDICATE")
    }

    /// The objects matching a type-safe query, as live `Results` in the collection's order.
    ///
    /// ```swift
    /// let puppies = person.dogs.where { $0.age < 2 }
    /// ```
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        queryBase.where(isIncluded)
    }

    /// Like `where(_:)`, throwing `AtollError.invalidQuery` for an invalid query (see
    /// `Results.whereThrowing(_:)`).
    public func whereThrowing(_ isIncluded: (Query<Element>) -> Query<Bool>) throws -> Results<Element> {
        try queryBase.whereThrowing(isIncluded)
    }

    /// The position of the first object matching a type-safe query, or nil.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        queryBase.index(matching: isIncluded)
    }
}
