// Key-value coding by key path (`"owner.name"`), on objects and on collections of objects, as
// in Realm: a path follows to-one links; on a collection it is applied to every object.

extension Object {
    /// The value at a dotted key path that follows to-one links (`"owner.name"`); nil when a
    /// link on the way is nil or a name is not a property.
    ///
    /// ```swift
    /// dog.value(forKeyPath: "owner.name") as? String
    /// ```
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let head = String(keyPath[..<dot])
        let rest = String(keyPath[keyPath.index(after: dot)...])
        switch value(forKey: head) {
        case let object as Object: return object.value(forKeyPath: rest)
        case let collection as any _ObjectCollection: return collection._objects.map { $0.value(forKeyPath: rest) }
        default: return nil
        }
    }

    /// Sets the value at a dotted key path (`"owner.age"`). Inside a write, an invalid path makes
    /// the write throw, like any invalid `setValue(_:forKey:)`.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.firstIndex(of: ".") else { return setValue(value, forKey: keyPath) }
        let head = String(keyPath[..<dot])
        let rest = String(keyPath[keyPath.index(after: dot)...])
        guard let target = self.value(forKey: head) as? Object else {
            _managed?.realm.recordError(AtollError(.invalidArgument, "'\(objectSchema.className).\(head)' is not a link to an object, or it is nil; cannot set '\(keyPath)'"))
            return
        }
        target.setValue(value, forKeyPath: rest)
    }
}

/// The objects of a collection, for key paths that go through a to-many property.
protocol _ObjectCollection {
    var _objects: [Object] { get }
}

extension List: _ObjectCollection where Element: Object {
    var _objects: [Object] { Array(self) }
}

extension LinkingObjects: _ObjectCollection {
    var _objects: [Object] { Array(self) }
}

extension Results: _ObjectCollection {
    var _objects: [Object] { Array(self) }
}

extension AnyRealmCollection: _ObjectCollection {
    var _objects: [Object] { Array(self) }
}

extension Results {
    /// The value of `key` for every object, in order.
    public func value(forKey key: String) -> [Any?] { map { key == "self" ? $0 : $0.value(forKey: key) } }

    /// Sets `key` on every object (inside a write transaction): a bulk update.
    ///
    /// ```swift
    /// try realm.write { realm.objects(Person.self).setValue("Earth", forKey: "planet") }
    /// ```
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(self) { object.setValue(value, forKey: key) }
    }

    /// Sets the value at a key path on every object (inside a write transaction).
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        for object in Array(self) { object.setValue(value, forKeyPath: keyPath) }
    }
}

extension List where Element: Object {
    /// The value of `key` for every object of the list, in list order.
    public func value(forKey key: String) -> [Any?] { map { key == "self" ? $0 : $0.value(forKey: key) } }

    /// Sets `key` on every object of the list (inside a write transaction when managed).
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(self) { object.setValue(value, forKey: key) }
    }

    /// Sets the value at a key path on every object of the list.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        for object in Array(self) { object.setValue(value, forKeyPath: keyPath) }
    }
}

extension LinkingObjects {
    /// The value of `key` for every linking object.
    public func value(forKey key: String) -> [Any?] { map { key == "self" ? $0 : $0.value(forKey: key) } }
}
