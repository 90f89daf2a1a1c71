public import AtollStorage
import Synchronization
import CAtollShims
import Foundation

/// The base class of model classes.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted var name = ""
///     @Persisted var age = 0
/// }
/// let dog = Dog()            // unmanaged: a plain object
/// try realm.write { realm.add(dog) }   // managed: reads and writes go to the database
/// ```
/// An unmanaged object keeps its values in memory. Once added to a realm (or read from one) it is
/// *managed*: every read comes from the realm's current version, so every instance of the same
/// stored object sees committed changes ("live objects").
open class Object: CustomStringConvertible {
    /// Values of an unmanaged object, by property index (and of ignored properties always).
    @exclusivity(unchecked) var _values: [any PersistableValue]
    /// Raw index of this object's first property (see InitContext).
    @exclusivity(unchecked) public private(set) final var _indexBase: Int
    /// Set when the object is managed.
    @usableFromInline @exclusivity(unchecked) final var _managed: ManagedObjectState?

    /// A new unmanaged object with the declared default values.
    public required init() {
        _values = []
        _indexBase = 0
        let context = InitContext.current
        if atoll_managed_creation_active() != 0 {
            let count = context.propertyCount(of: self)
            _indexBase = atoll_managed_creation_release_slots(count)
            if atoll_managed_creation_is_target(InitContext.classPointer(type(of: self))) == 0 {
                // Made by a property's default value while Atoll makes a managed object.
                _values = typeDefaults(count: count)
            }
            return
        }
        let count = min(context.propertyCount(of: self), context.count)
        _indexBase = context.count - count
        _values = context.pop(count)
        if let layout = context.codableLayout(of: self) { layout.finishInit(of: self, context: context) }
    }

    /// Each property's type default, by property index (see InitContext: an unmanaged object
    /// made while Atoll makes a managed one, whose declared defaults were not collected).
    private func typeDefaults(count: Int) -> [any PersistableValue] {
        var values = [(any PersistableValue)?](repeating: nil, count: count)
        var mirror: Mirror? = Mirror(reflecting: self)
        while let m = mirror {
            for child in m.children {
                guard let wrapper = child.value as? any PersistedProperty else { continue }
                let i = Int(wrapper.rawIndex) - _indexBase
                if i >= 0 && i < count { values[i] = wrapper.valueType._atollDefault() }
            }
            mirror = m.superclassMirror
        }
        return values.map { $0 ?? false }
    }

    // MARK: schema overrides (as in Realm)

    /// The primary key property's name, when not declared with `@Persisted(primaryKey: true)`.
    open class func primaryKey() -> String? { nil }
    /// Properties to index, besides those declared `@Persisted(indexed: true)`.
    open class func indexedProperties() -> [String] { [] }
    /// `@Persisted` properties that are not stored.
    open class func ignoredProperties() -> [String] { [] }

    /// The class name used as the table name.
    open class func className() -> String { String(describing: self) }

    // MARK: state

    /// The realm managing this object, or nil while unmanaged.
    public var realm: Realm? { _managed?.realm }

    /// True once a managed object was deleted, or its realm invalidated.
    public var isInvalidated: Bool {
        guard let m = _managed else { return false }
        return m.isInvalidated
    }

    /// Whether this is a frozen (immutable) object.
    public var isFrozen: Bool { _managed?.realm.isFrozen ?? false }

    /// The schema of this object's class.
    public var objectSchema: ObjectSchema { ObjectSchema.of(type(of: self)) }

    // MARK: property access

    // Inlinable so that a property read of a managed object calls its type's reader directly,
    // with no generic dispatch.
    @inlinable
    public func _getValue<V: PersistableValue>(_ index: Int, as type: V.Type) -> V {
        if _readsFromStorage(index) { return V._atollGet(_ManagedAccess(object: self, propertyIndex: index)) }
        return _unmanagedValue(index, as: V.self)
    }

    /// Whether property `index` is read from the database: the object is managed and the
    /// property is not ignored.
    // Inlinable: a call per property read was ~4% of the instructions of a loop reading one.
    @inlinable
    final func _readsFromStorage(_ index: Int) -> Bool { _managed?.isStoredProperty(index) ?? false }

    @usableFromInline
    func _unmanagedValue<V: PersistableValue>(_ index: Int, as type: V.Type) -> V {
        guard index >= 0, index < _values.count, let v = _values[index] as? V else { return _missingUnmanagedValue(index, as: V.self) }
        return v
    }

    /// The value read for an unmanaged property that has none: the type's default, or, for an
    /// instance recording a key path (KeyPathRecorder), the recorded step's value.
    @inline(never)
    final func _missingUnmanagedValue<V: PersistableValue>(_ index: Int, as type: V.Type) -> V {
        if let recorded = KeyPathRecorder.record(self, index, as: V.self) { return recorded }
        return V._atollDefault()
    }

    public func _setValue<V: PersistableValue>(_ value: V, at index: Int) {
        if let managed = _managed {
            if managed.realm.isFrozen {
                atollProgrammerError("cannot modify '\(managed.schema.className).\(managed.schema.allProperties[index].name)': the object is frozen (thaw() it first)")
            }
            if !managed.schema.allProperties[index].isIgnored {
                managed.set(index, value, object: self)
                return
            }
            // An ignored property of an object read from a realm: kept on this instance. Slots
            // of other properties are padded with values that do not cast to their types, so
            // they read as their type's default.
            if index >= _values.count { _values += [any PersistableValue](repeating: V._atollDefault(), count: index + 1 - _values.count) }
        }
        guard index >= 0, index < _values.count else { return }
        _values[index] = value
    }

    /// The unmanaged value of property `index` (for adding the object to a realm).
    func unmanagedValue(_ index: Int) -> (any PersistableValue)? {
        index < _values.count ? _values[index] : nil
    }

    /// Once the object is managed its stored properties are read from the realm: drops their
    /// unmanaged values (keeping ignored properties'), so that the objects and lists they held
    /// are not kept alive by it (an added cycle of objects is freed with its last reference).
    func dropStoredValues(_ binding: ClassBinding) {
        let reads = binding.readsFromStorage
        if !reads.contains(false) {
            _values = []
            return
        }
        for i in _values.indices where i < reads.count && reads[i] { _values[i] = false }
    }

    // MARK: key-value coding

    /// The value of the property `key`, or nil (KVC, as in Realm).
    open func value(forKey key: String) -> Any? {
        guard let i = objectSchema.index(of: key) else { return key == "self" ? self : nil }
        if let managed = _managed { return managed.anyValue(i, object: self) }
        guard let value = unmanagedValue(i) else { return nil }
        if let optional = value as? any OptionalProtocol, optional.isNone { return nil }
        // A custom-persisted value reads as its persisted value, as in RealmSwift.
        if let custom = value as? any _CustomPersistable { return custom._atollRawValue }
        return value
    }

    /// Sets the property `key` from a value of a compatible type (KVC).
    open func setValue(_ value: Any?, forKey key: String) {
        guard let i = objectSchema.index(of: key) else {
            _managed?.realm.recordError(AtollError(.invalidArgument, "'\(objectSchema.className)' has no property '\(key)'"))
            return
        }
        if let managed = _managed {
            managed.setAny(i, value, object: self)
            return
        }
        do {
            if let v = try objectSchema.allProperties[i].swiftValue(from: value, realm: nil) as? any PersistableValue { _values[i] = v }
        } catch {
            // An unmanaged object has no transaction to fail; keep the old value.
        }
    }

    /// The value of a property by name (`dog["name"]`), like `value(forKey:)` and
    /// `setValue(_:forKey:)`.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    // MARK: identity

    /// Whether both are the same stored object (or the same instance when unmanaged).
    public func isSameObject(as other: Object?) -> Bool {
        guard let other else { return false }
        if self === other { return true }
        guard let a = _managed, let b = other._managed else { return false }
        return a.realm.database === b.realm.database && a.binding.tableKey == b.binding.tableKey && a.key == b.key
    }

    open var description: String {
        let schema = objectSchema
        var parts: [String] = []
        for (i, p) in schema.properties.enumerated() where !p.isLinkingObjects {
            parts.append("\(p.name) = \(describeValue(value(forKey: p.name)))")
            _ = i
        }
        return "\(schema.className) {\n\t" + parts.joined(separator: ";\n\t") + ";\n}"
    }

    private func describeValue(_ v: Any?) -> String {
        guard let v else { return "nil" }
        if let o = v as? Object { return "\(o.objectSchema.className)(...)" }
        if let s = v as? String { return "\"\(s)\"" }
        return "\(v)"
    }
}

// MARK: links

extension Object: PersistableValue {
    public static var _atollType: _PropertyType {
        _PropertyType(kind: .link(ObjectIdentifier(self)), isOptional: false, intBits: 64, objectType: self)
    }

    public static func _atollDefault() -> Self { Self() }

    public static func _atollGet(_ a: _ManagedAccess) -> Self {
        guard let key = a.read({ $0.link($1, $2) }), let o = a.realm.makeObject(Self.self, key: key) else { return Self() }
        return o
    }

    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Self? {
        guard case .link(let key) = v, let realm else { return nil }
        return realm.makeObject(Self.self, key: key)
    }

    public var _atollStorageValue: StorageValue? { nil }
}

extension Object: RealmCollectionValue {}

extension Object {
    /// An unmanaged object with values from a dictionary (`["name": "Rex"]`) or an array of
    /// every persisted property in declaration order. Nested dictionaries and arrays make
    /// linked objects. Unknown keys are ignored; values of the wrong type are skipped (use
    /// `realm.create` to get errors).
    ///
    /// ```swift
    /// let pluto = Dog(value: ["name": "Pluto", "age": 3])
    /// let fido = Dog(value: ["Fido", 5])
    /// let jane = Person(value: ["Jane", 30, [["Buster", 5], ["Buddy", 6]]])
    /// ```
    public convenience init(value: Any) {
        self.init()
        fillUnmanaged(from: value)
    }

    /// A new unmanaged object of `type` (a class known at run time) from a dynamic value: the
    /// linked objects a value describes in place. Nesting deeper than
    /// `InputLimits.objectNestingDepthMax` stops the program (`Object(value:)` cannot throw, and
    /// leaving the deepest objects out would lose data silently).
    static func makeUnmanaged(_ type: Object.Type, value: Any) -> Object {
        // The object being filled is level depth + 1 of the chain; this one is the next.
        let depth = UnmanagedNesting.depth
        guard depth + 2 <= InputLimits.objectNestingDepthMax else {
            atollProgrammerError(InputLimits.objectNestingExceeded(type.className()).message + " (in Object(value:))")
        }
        UnmanagedNesting.depth = depth + 1
        defer { UnmanagedNesting.depth = depth }
        let object = type.init()
        object.fillUnmanaged(from: value)
        return object
    }

    private func fillUnmanaged(from value: Any) {
        let schema = objectSchema
        if let dict = value as? [String: Any] {
            for (k, v) in dict { if schema.index(of: k) != nil { setValue(v, forKey: k) } }
        } else if let array = ObjectWriter.array(value) {
            // In the order of `properties` (a superclass's first), as in RealmSwift.
            for (slot, v) in zip(schema.storedSlotsInOrder, array) { setValue(v, forKey: schema.allProperties[slot].name) }
        } else if let object = instance(value, of: Object.self) {
            // Another object: its values of the properties of the same names.
            for p in schema.properties where p.isStored {
                if object.objectSchema.index(of: p.name) != nil { setValue(object.value(forKey: p.name), forKey: p.name) }
            }
        }
    }
}

/// How deep the current thread is in making unmanaged objects from nested values
/// (`Object.makeUnmanaged`): per thread, since unmanaged objects are made on any thread.
enum UnmanagedNesting {
    private static let key = "atoll.unmanagedNestingDepth"

    static var depth: Int {
        get { Thread.current.threadDictionary[key] as? Int ?? 0 }
        set { Thread.current.threadDictionary[key] = newValue == 0 ? nil : newValue }
    }
}
