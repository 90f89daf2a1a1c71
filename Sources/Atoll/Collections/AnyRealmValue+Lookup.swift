import AtollStorage

extension List where Element == AnyRealmValue {
    /// The position of the first element equal to `value`, or nil. An `.object` is found by the
    /// stored object it is (an object without a primary key equals only itself in Swift, so
    /// comparing elements would miss a second accessor of the same stored object). O(n).
    public func index(of value: AnyRealmValue) -> Int? {
        guard let m = managed else { return storage.firstIndex(of: value) }
        guard let v = CollectionElement.lookupValue(value, in: m.realm) else { return nil }
        return stored().firstIndex(of: v)
    }
}
