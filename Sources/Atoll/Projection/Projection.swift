public import Dispatch
import Foundation
import AtollStorage
import Synchronization

// Projections (RealmSwift's `Projection` and `@Projected`): a class that shows some properties
// of an object, possibly renamed, reached through links or transformed by a key path:
//
//     final class PersonView: Projection<Person> {
//         @Projected(\Person.firstName) var name
//         @Projected(\Person.address?.city) var homeCity
//         @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
//         @Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
//     }
//     let people = realm.objects(PersonView.self)        // live, filter/sort/observe like Results
//
// A projection holds its object and nothing else: every read goes through the key path to the
// live object, so a projection is as live (or frozen) as its object. Its schema (each projected
// property's label, key path and the stored property path it reads) is found once per class by
// reflecting on the `@Projected` wrappers; the stored paths come from `KeyPathRecorder`. A key
// path through a computed property may read several stored properties
// (`@Projected(\Person.fullName)` reading firstName and lastName): the projected property then
// depends on each of them, for observation as for its description.

/// A type-erased `@Projected` wrapper, found by reflection.
protocol AnyProjected {
    var projectedKeyPath: AnyKeyPath { get }
    /// The stored property paths the key path reads (`["address.city"]`; several for a computed
    /// property that reads several).
    func originPaths() -> [String]
}

/// A property of a `Projection`: the value of a key path of the projected object.
///
/// A projected property can be set when its key path is writable (`\Person.firstName`, inside a
/// write transaction, as a write of the object); reading is always through the live object.
@propertyWrapper
public struct Projected<T: Object, Value>: AnyProjected {
    let keyPath: KeyPath<T, Value>

    var projectedKeyPath: AnyKeyPath { keyPath }
    func originPaths() -> [String] {
        KeyPathRecorder.paths(keyPath, from: T.self) { root in _ = root[keyPath: keyPath] }
    }

    @available(*, unavailable, message: "@Projected can only be used as a property of a Projection")
    public var wrappedValue: Value {
        get { atollProgrammerError("@Projected can only be used as a property of a Projection") }
        // swiftlint:disable:next unused_setter_value
        set { atollProgrammerError("@Projected can only be used as a property of a Projection") }
    }

    /// The read and write of the property through the enclosing projection's object.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            observed.rootObject[keyPath: observed[keyPath: storageKeyPath].keyPath]
        }
        set {
            guard let writable = observed[keyPath: storageKeyPath].keyPath as? ReferenceWritableKeyPath<T, Value> else {
                atollProgrammerError("the key path \(observed[keyPath: storageKeyPath].keyPath) of a projected property is not writable")
            }
            observed.rootObject[keyPath: writable] = newValue
        }
    }

    /// A property showing the value of `projectedKeyPath` of the projected object.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        keyPath = projectedKeyPath
    }
}

/// What every projection class is: made from an object of `Root`, which it shows.
public protocol ProjectionObservable: AnyObject {
    associatedtype Root: Object
    /// The projected object.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// The base class of projections: subclass it and declare `@Projected` properties.
///
/// Equal projections project the same stored object. Projections of managed objects are made
/// by `realm.objects(MyProjection.self)` or `MyProjection(projecting: object)`.
open class Projection<Root: Object>: ProjectionObservable, Hashable, CustomStringConvertible {
    /// The projected object.
    public let rootObject: Root

    /// A projection of `object`. The projection's schema is checked now, so a `@Projected` key
    /// path that reads no persisted property stops the program here, as in RealmSwift.
    public required init(projecting object: Root) {
        rootObject = object
        _ = schema
    }

    /// The same stored object seen the same way: both live, or both frozen at one version (a
    /// frozen projection differs from the live one, as in RealmSwift).
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        guard lhs.rootObject.isSameObject(as: rhs.rootObject) else { return false }
        guard let a = lhs.realm, let b = rhs.realm else { return true }
        return a.isFrozen == b.isFrozen && (!a.isFrozen || a.version == b.version)
    }

    public func hash(into hasher: inout Hasher) {
        if let m = rootObject._managed {
            hasher.combine(m.binding.tableKey)
            hasher.combine(m.key)
        } else {
            hasher.combine(ObjectIdentifier(rootObject))
        }
    }

    /// The projection's class, its object's class and each projected property with the stored
    /// path it reads and its value, as RealmSwift writes it.
    open var description: String {
        let properties = schema.map { property in
            let paths = property.originPaths.map { "\\.\($0)" }.joined(separator: ", ")
            return "\t\(property.label)(\(paths)) = \(describeProjected(rootObject[keyPath: property.keyPath]));"
        }
        return "\(type(of: self))<\(type(of: rootObject))> <\(Unmanaged.passUnretained(rootObject).toOpaque())> {\n\t"
            + properties.joined(separator: "\n") + "\n}"
    }

    /// The realm of the projected object (nil when it is unmanaged).
    public var realm: Realm? { rootObject.realm }
    /// True when the projected object was deleted or its realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }
    /// Whether the projected object is frozen.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// A projection of the frozen snapshot of the object (see `Object.freeze()`).
    public func freeze() -> Self { isFrozen ? self : Self(projecting: rootObject.freeze()) }

    /// A projection of the live object for a frozen one, or nil when it has been deleted since;
    /// a live projection returns itself.
    public func thaw() -> Self? {
        guard isFrozen else { return self }
        return rootObject.thaw().map { Self(projecting: $0) }
    }

    var schema: [ProjectionProperty] { ProjectionSchemaCache.schema(of: self) }
}

/// `value` as a description shows it: optionals as `Optional(...)`, as Swift prints them.
private func describeProjected(_ value: Any?) -> String {
    guard let value else { return "nil" }
    return String(describing: value)
}

/// One projected property: its label, key path (from the root object) and the stored paths
/// it reads.
struct ProjectionProperty: @unchecked Sendable {
    // Sendable: every field is immutable; the key path is an immutable value that the standard
    // library does not mark Sendable.
    let label: String
    let keyPath: AnyKeyPath
    let originPaths: [String]

    /// Whether a change of the root's property `name` changes this property.
    func reads(_ name: String) -> Bool {
        originPaths.contains { $0.split(separator: ".").first.map(String.init) == name }
    }
}

/// The schemas of projection classes, by class, found on first use.
enum ProjectionSchemaCache {
    private static let schemas = AtollLock<[ObjectIdentifier: [ProjectionProperty]]>([:])

    static func schema(of projection: AnyObject) -> [ProjectionProperty] {
        let id = ObjectIdentifier(type(of: projection))
        if let known = schemas.withLock({ $0[id] }) { return known }
        var properties: [ProjectionProperty] = []
        var mirror: Mirror? = Mirror(reflecting: projection)
        var levels: [[ProjectionProperty]] = []
        // Superclass properties first, in declaration order, as Swift lays them out.
        while let m = mirror {
            var level: [ProjectionProperty] = []
            for child in m.children {
                guard let label = child.label, label.hasPrefix("_"), let projected = child.value as? any AnyProjected else { continue }
                level.append(ProjectionProperty(label: String(label.dropFirst()), keyPath: projected.projectedKeyPath,
                                                originPaths: projected.originPaths()))
            }
            levels.append(level)
            mirror = m.superclassMirror
        }
        for level in levels.reversed() { properties += level }
        schemas.withLock { $0[id] = properties }
        return properties
    }
}

// MARK: - Observation

extension ProjectionObservable {
    /// Calls `block` after every commit that changes a projected property of the object
    /// (`.change` with the projected properties, by their labels, and their old and new values)
    /// or deletes it (`.deleted`). As in RealmSwift there is no initial call.
    ///
    /// `keyPaths`: stored property paths (`"firstName"`, `"address.city"`) limiting the
    /// projected properties watched to those reading them; nil or empty: all of them.
    /// `queue`: deliver on this queue, with a projection of the object in a realm confined to it.
    ///
    /// Several projected properties reading the same stored property each report its change.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let schema = ProjectionSchemaCache.schema(of: self)
        var watched = schema.flatMap(\.originPaths)
        if let keyPaths, !keyPaths.isEmpty { watched = watched.filter { keyPaths.contains($0) } }
        var projection: Self? = queue == nil ? self : nil
        return rootObject.observe(keyPaths: watched, on: queue) { (change: ObjectChange<Root>) in
            switch change {
            case .error(let error):
                block(.error(error))
            case .deleted:
                block(.deleted)
            case .change(let object, let changes):
                if projection == nil { projection = Self(projecting: object) }
                // Old values: the key paths applied to an unmanaged object holding them. A key
                // path that reads several stored properties (a computed property) also needs
                // those that did not change: they are copied from the object as they are now.
                let before = Root()
                let changed = Set(changes.map(\.name))
                var copied = changed
                for property in schema where property.originPaths.count > 1 && changed.contains(where: property.reads) {
                    for path in property.originPaths {
                        let name = String(path.prefix { $0 != "." })
                        if copied.insert(name).inserted { before.setValue(object.value(forKey: name), forKey: name) }
                    }
                }
                for change in changes { before.setValue(change.oldValue, forKey: change.name) }
                var projected: [PropertyChange] = []
                for change in changes {
                    for property in schema where property.reads(change.name) {
                        if let keyPaths, !keyPaths.isEmpty, !property.originPaths.contains(where: { keyPaths.contains($0) }) { continue }
                        projected.append(PropertyChange(name: property.label,
                                                        oldValue: before[keyPath: property.keyPath],
                                                        newValue: object[keyPath: property.keyPath]))
                    }
                }
                if !projected.isEmpty, let projection { block(.change(projection, projected)) }
            }
        }
    }

    /// `observe(keyPaths:on:_:)` with key paths of the projection (`[\PersonView.homeCity]`),
    /// each meaning the stored path its `@Projected` key path reads.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        _ = ProjectionSchemaCache.schema(of: self)
        let names = keyPaths.flatMap { keyPath in
            KeyPathRecorder.paths(keyPath, from: Root.self) { root in _ = Self(projecting: root)[keyPath: keyPath] }
        }
        return observe(keyPaths: names.isEmpty ? nil : names, on: queue, block)
    }
}
