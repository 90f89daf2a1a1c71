import Foundation
import AtollStorage
import Synchronization

// How a Swift key path (`\Dog.owner.name`) becomes the property names of Atoll's query
// language ("owner.name") on Linux, without the Objective-C runtime.
//
// A key path through `@Persisted` properties is an opaque chain of getters: Swift does not say
// which stored property a getter reads. So the names are found by *running* the key path once,
// on a recording instance: an unmanaged object of the root class whose value array is empty.
// Every @Persisted getter of an unmanaged object reads `_values[index]`; with the array empty the
// read falls to `Object._missingUnmanagedValue`, the branch ordinary objects take only for a
// value they lack. There, an instance registered here records (its class, the property index)
// and gets back, for a link, a recording instance of the linked class, so that the next
// component of the key path records too.
//
// Each step must read from the instance the previous step returned: a computed property that
// reads two persisted properties, or a key path that reads none, is refused by name. Projections
// accept the first (`@Projected(\Person.fullName)` reading firstName and lastName): for them
// `paths(_:from:reading:)` returns every stored path the key path reads.
//
// Cost: the first use of a key path makes one object per class on the path (default values
// evaluated, as RealmSwift's recorder does); afterwards a lookup is one hash of the key path
// under a lock. Managed reads never reach the recording branch, and unmanaged reads of values
// that are present return before it: property reads and iteration are unchanged.

/// Finds and caches the property names a key path reads.
enum KeyPathRecorder {
    /// Names of every key path resolved so far, by key path.
    private static let cache = KeyPathNameCache()
    /// Recordings in progress (any thread), by recording instance.
    private static let active = AtollLock<[ObjectIdentifier: KeyPathRecording]>([:])
    /// `active.count`, read without the lock on the missing-value branch.
    private static let activeCount = Atomic<Int>(0)

    /// The property names `keyPath` reads from a `Root`, in order: `["owner", "name"]` for
    /// `\Dog.owner.name`. A key path that does not read a chain of persisted properties stops
    /// the program (a programming error, as in RealmSwift).
    static func names<Root: Object>(_ keyPath: PartialKeyPath<Root>) -> [String] {
        if let names = cache.names(keyPath) { return names }
        let names = record(keyPath, root: Root.self)
        cache.store(keyPath, names)
        return names
    }

    /// `names(keyPath)` joined with dots: `"owner.name"`.
    static func name<Root: Object>(_ keyPath: PartialKeyPath<Root>) -> String {
        names(keyPath).joined(separator: ".")
    }

    private static func record<Root: Object>(_ keyPath: PartialKeyPath<Root>, root: Root.Type) -> [String] {
        record(String(describing: keyPath), root: Root.self) { _ = $0[keyPath: keyPath] }
    }

    /// The property names `keyPath` reads, where `keyPath` starts from something made from a
    /// `Root` (a `Projection` of it): `read` gets the recording instance of `Root` and applies
    /// the key path through it. Cached per key path, like `names(_:)`.
    static func names<Root: Object>(_ keyPath: AnyKeyPath, from root: Root.Type, reading read: (Root) -> Void) -> [String] {
        if let names = cache.names(keyPath) { return names }
        let names = record(String(describing: keyPath), root: Root.self, read)
        cache.store(keyPath, names)
        return names
    }

    private static func record<Root: Object>(_ description: String, root: Root.Type, _ read: (Root) -> Void) -> [String] {
        let recording = KeyPathRecording()
        let instance = recording.makeInstance(Root.self)
        recording.expectNext(instance)
        defer { finish(recording) }
        read(instance)
        if let problem = recording.problem {
            atollProgrammerError("key path \(description) \(problem)")
        }
        guard !recording.names.isEmpty else {
            atollProgrammerError("key path \(description) does not read a @Persisted property of '\(Root.className())'")
        }
        return recording.names
    }

    /// Every stored property path (dotted) that `keyPath` reads, where `keyPath` starts from
    /// something made from a `Root` (see `names(_:from:reading:)`), in the order first read:
    /// `["firstName", "lastName"]` for a computed property that reads both, `["owner.name"]` for
    /// a chain. Unlike `names`, reading several properties is allowed; reading none, or a
    /// property that is not persisted, stops the program. Not cached: callers cache per class.
    static func paths<Root: Object>(_ keyPath: AnyKeyPath, from root: Root.Type, reading read: (Root) -> Void) -> [String] {
        let description = String(describing: keyPath)
        let recording = KeyPathRecording()
        let instance = recording.makeInstance(Root.self)
        recording.expectNext(instance)
        defer { finish(recording) }
        read(instance)
        if let problem = recording.pathProblem {
            atollProgrammerError("key path \(description) \(problem)")
        }
        guard !recording.paths.isEmpty else {
            atollProgrammerError("key path \(description) does not read a @Persisted property of '\(Root.className())'")
        }
        var seen = Set<String>()
        return recording.paths.map { $0.joined(separator: ".") }.filter { seen.insert($0).inserted }
    }

    fileprivate static func register(_ object: Object, in recording: KeyPathRecording) {
        active.withLock { $0[ObjectIdentifier(object)] = recording }
        activeCount.add(1, ordering: .relaxed)
    }

    private static func finish(_ recording: KeyPathRecording) {
        active.withLock { all in
            for object in recording.instances { all[ObjectIdentifier(object)] = nil }
        }
        activeCount.subtract(recording.instances.count, ordering: .relaxed)
    }

    /// Called for a read of property `index` of an unmanaged `object` that has no value: when
    /// `object` is a recording instance, records the step and returns the value the key path
    /// continues from; otherwise nil.
    static func record<V: PersistableValue>(_ object: Object, _ index: Int, as type: V.Type) -> V? {
        guard activeCount.load(ordering: .relaxed) > 0,
              let recording = active.withLock({ $0[ObjectIdentifier(object)] }) else { return nil }
        return recording.step(object, index, as: V.self)
    }
}

/// One key path being recorded. Used by the thread running the key path only; `KeyPathRecorder`
/// keeps it in a lock-protected table so that the read branch can find it.
final class KeyPathRecording: @unchecked Sendable {
    // Sendable: every member is read and written only by the thread that runs the key path (it
    // made the recording and its instances, which do not escape it); the lock-protected table
    // holds the reference only so that the read branch, on that same thread, can find it.
    private(set) var names: [String] = []
    private(set) var instances: [Object] = []
    private(set) var problem: String?
    /// Every path read (`paths(_:from:reading:)`): a step from the expected instance extends
    /// the last path, a step from another recording instance starts a new one after its prefix.
    private(set) var paths: [[String]] = []
    /// Why `paths` cannot be trusted (a property that is not persisted).
    private(set) var pathProblem: String?
    /// The path leading to each recording instance (empty for the root).
    private var prefixes: [ObjectIdentifier: [String]] = [:]
    /// The path leading to the next instance made (the path of the step being read).
    private var pendingPrefix: [String] = []
    /// The instance the next step must read from.
    private var expected: ObjectIdentifier?

    func makeInstance<T: Object>(_ type: T.Type) -> T {
        let object = T()
        object._values = []
        instances.append(object)
        prefixes[ObjectIdentifier(object)] = pendingPrefix
        KeyPathRecorder.register(object, in: self)
        return object
    }

    func step<V: PersistableValue>(_ object: Object, _ index: Int, as type: V.Type) -> V {
        let schema = object.objectSchema
        let id = ObjectIdentifier(object)
        if problem == nil {
            if id != expected {
                problem = "reads more than one property of an object (a computed property?); use a chain of @Persisted properties"
            } else if !schema.properties.indices.contains(index) {
                problem = "reads a property '\(schema.className)' does not persist"
            } else {
                names.append(schema.properties[index].name)
            }
        }
        if schema.properties.indices.contains(index) {
            let name = schema.properties[index].name
            if id == expected, !paths.isEmpty {
                paths[paths.count - 1].append(name)
            } else {
                paths.append((prefixes[id] ?? []) + [name])
            }
            pendingPrefix = paths[paths.count - 1]
        } else if pathProblem == nil {
            pathProblem = "reads a property '\(schema.className)' does not persist"
        }
        expected = nil
        if let recordable = V.self as? any KeyPathRecordingValue.Type, let next = recordable._recordingValue(self) as? V {
            return next
        }
        return V._atollDefault()
    }

    /// Marks `object` as the instance the next step reads from.
    func expectNext(_ object: Object) { expected = ObjectIdentifier(object) }
}

/// Values a key path can continue through: links to objects (optional or not), lists of them.
protocol KeyPathRecordingValue {
    static func _recordingValue(_ recording: KeyPathRecording) -> Self
}

extension Object: KeyPathRecordingValue {
    static func _recordingValue(_ recording: KeyPathRecording) -> Self {
        let object = recording.makeInstance(self)
        recording.expectNext(object)
        return object
    }
}

extension Optional: KeyPathRecordingValue where Wrapped: KeyPathRecordingValue {
    static func _recordingValue(_ recording: KeyPathRecording) -> Self { .some(Wrapped._recordingValue(recording)) }
}

/// A list of objects holds one recording element, so `\Person.dogs[0].name` (or
/// `dogs.first?.name`) continues into the element's class: "dogs.name".
extension List: KeyPathRecordingValue where Element: KeyPathRecordingValue {
    static func _recordingValue(_ recording: KeyPathRecording) -> List<Element> {
        let list = List<Element>()
        list.append(Element._recordingValue(recording))
        return list
    }
}

/// The key path → names cache. Sendable: every access holds the lock, and key paths are
/// immutable values (the standard library does not mark them Sendable).
private final class KeyPathNameCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [AnyKeyPath: [String]] = [:]

    func names(_ keyPath: AnyKeyPath) -> [String]? { lock.withLock { entries[keyPath] } }
    func store(_ keyPath: AnyKeyPath, _ names: [String]) { lock.withLock { entries[keyPath] = names } }
}

/// The dotted property path a key path reads (`\Dog.owner.name` → `"owner.name"`), as
/// RealmSwift's `_name(for:)`.
public func _name<T: Object>(for keyPath: PartialKeyPath<T>) -> String {
    KeyPathRecorder.name(keyPath)
}
