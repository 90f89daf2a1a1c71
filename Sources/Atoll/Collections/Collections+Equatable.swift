extension Results: Equatable {
    /// The same results instance (as in RealmSwift, two calls of `realm.objects(Dog.self)`
    /// make two unequal results, while a `Results` equals its copies).
    public static func == (lhs: Results<Element>, rhs: Results<Element>) -> Bool { lhs.core === rhs.core }
}

extension LinkingObjects: Equatable {
    /// The same linking-objects instance (each read of the property makes a new one, as in
    /// RealmSwift); the empty linking objects of unmanaged objects are equal.
    public static func == (lhs: LinkingObjects<Element>, rhs: LinkingObjects<Element>) -> Bool {
        switch (lhs.results, rhs.results) {
        case (nil, nil): return true
        case (let a?, let b?): return a.core === b.core
        default: return false
        }
    }
}

extension List: Equatable {
    /// Managed lists: the same instance. Unmanaged lists: the same elements in the same order
    /// (as RealmSwift's unmanaged lists compare their arrays).
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool {
        if lhs === rhs { return true }
        // Nested in a managed mixed value: the same collection of the same object.
        if lhs.nestedLink != nil || rhs.nestedLink != nil { return NestedMixedLink.same(lhs.nestedLink, rhs.nestedLink) }
        guard lhs.realm == nil, rhs.realm == nil else { return false }
        return lhs.elementsEqual(rhs)
    }
}

extension MutableSet: Equatable {
    /// Managed sets: the same instance. Unmanaged sets: the same elements (in any order).
    public static func == (lhs: MutableSet<Element>, rhs: MutableSet<Element>) -> Bool {
        if lhs === rhs { return true }
        guard lhs.realm == nil, rhs.realm == nil else { return false }
        return lhs.storage.count == rhs.storage.count && lhs.storage.allSatisfy { rhs.storage.contains($0) }
    }
}

extension Map: Equatable {
    /// Managed maps: the same instance. Unmanaged maps: the same keys with equal values.
    public static func == (lhs: Map<Key, Value>, rhs: Map<Key, Value>) -> Bool {
        if lhs === rhs { return true }
        if lhs.nestedLink != nil || rhs.nestedLink != nil { return NestedMixedLink.same(lhs.nestedLink, rhs.nestedLink) }
        guard lhs.realm == nil, rhs.realm == nil else { return false }
        return lhs.storage == rhs.storage
    }
}
