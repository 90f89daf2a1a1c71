extension SortDescriptor: ExpressibleByStringLiteral, CustomStringConvertible {
    /// An ascending sort by the key path written as a string: `sorted(by: ["name", "age"])`.
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same key path in the other direction.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }

    /// `SortDescriptor(keyPath: name, direction: ascending)`, as in RealmSwift.
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}
