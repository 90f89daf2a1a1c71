// The dynamic API in RealmSwift's shape: no `try`, and an unknown class, property or invalid
// predicate is a programming error (RealmSwift raises an exception). The throwing forms
// (`dynamicObjects(throwing:)`, `filter(throwing:)`, `sorted(throwing:)`, ...) are for names
// that come from input, as in the `atoll` tool.
//
// ```swift
// for dog in realm.dynamicObjects("Dog").filter("age > 2").sorted(byKeyPath: "name") {
//     print(dog.name ?? "", dog["age"] ?? 0)
// }
// ```

extension Realm {
    /// Every object of the class named `typeName`, as live results.
    public func dynamicObjects(_ typeName: String) -> DynamicResults {
        do { return try dynamicObjects(throwing: typeName) } catch { dynamicFailure(error, reading: "the objects of '\(typeName)'") }
    }

    /// The object of the class named `typeName` with the given primary key, or nil. O(log n).
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        do { return try dynamicObject(throwingOfType: typeName, forPrimaryKey: key) } catch {
            dynamicFailure(error, reading: "the '\(typeName)' object with primary key \(key)")
        }
    }

    /// Stops the program for an error of a throwing form called through its RealmSwift form: a
    /// read that failed as every accessor that cannot throw does (README, "Failed reads"),
    /// anything else (an unknown class, a key of the wrong type) as the programming error
    /// RealmSwift raises.
    func dynamicFailure(_ error: any Swift.Error, reading what: @autoclosure () -> String) -> Never {
        switch (error as? AtollError)?.kind {
        case .fileCorrupted?, .ioError?: readFailed(error, reading: what())
        default: atollProgrammerError("\(error)")
        }
    }
}

extension DynamicResults {
    /// The objects matching a predicate (see `filter(throwing:_:)`); an invalid predicate is a
    /// programming error.
    public func filter(_ predicateFormat: String, _ args: Any...) -> DynamicResults {
        do { return try filter(predicateFormat, arguments: args) } catch { atollProgrammerError("invalid query: \(error)") }
    }

    /// Sorted by a key path; an unknown key path is a programming error.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> DynamicResults {
        do { return try sorted(throwingByKeyPath: keyPath, ascending: ascending) } catch { atollProgrammerError("\(error)") }
    }

    /// Sorted by several key paths, the first descriptor first; an unknown key path is a
    /// programming error.
    public func sorted<S: Sequence>(by descriptors: S) -> DynamicResults where S.Element == SortDescriptor {
        do { return try sorted(throwing: descriptors) } catch { atollProgrammerError("\(error)") }
    }

    /// The first object of each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> DynamicResults where S.Element == String {
        do { return try distinct(throwing: keyPaths) } catch { atollProgrammerError("\(error)") }
    }

    /// The position of the first object matching a predicate, or nil.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        let matching: DynamicResults
        do { matching = try filter(predicateFormat, arguments: args) } catch { atollProgrammerError("invalid query: \(error)") }
        let wanted = Set(matching.keys)
        return keys.firstIndex { wanted.contains($0) }
    }
}
