extension DynamicObject {
    /// A property by name as a member, as in RealmSwift: `dog.name`, `oldObject!.age`;
    /// the same as `dog["name"]` (nil for nil, an unknown property or a deleted object).
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }
}
