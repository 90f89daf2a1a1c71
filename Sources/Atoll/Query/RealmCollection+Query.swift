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
    /// an invalid one is a programming error, as in RealmSwift.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let (format, arguments) = isIncluded(Query<Element>())._constructPredicate()
        do { return try filter(throwing: format, arguments) } catch {
            atollProgrammerError("invalid query '\(format)': \(error)")
        }
    }

    /// The position of the first object matching a type-safe query, or nil.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        let (format, arguments) = isIncluded(Query<Element>())._constructPredicate()
        let matching: Results<Element>
        do { matching = try filter(throwing: format, arguments) } catch {
            atollProgrammerError("invalid query '\(format)': \(error)")
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

    /// The position of the first object matching a type-safe query, or nil.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        queryBase.index(matching: isIncluded)
    }
}
