#if canImport(Glibc)
import Glibc
#endif
import CAtollShims

// How a @Persisted property finds its object.
//
// Swift initializes a subclass's stored properties (in declaration order) before the base
// class's initializer runs, and a property's default value expression is evaluated before its
// wrapper is initialized. So, per thread, every `Persisted.init` pushes its default value on a
// stack and records its stack position as its raw index; `Object.init` then takes the last n
// entries (n = the class's persisted property count) as its own. An object created inside a
// default value expression pushes and pops its entries before the enclosing property's wrapper
// is initialized, so nesting is handled. An object's property i has raw index base + i, where
// base is recorded in the object.
//
// When Atoll itself creates an object to represent a stored one (managed creation), the
// defaults are not collected: only the indices are, counted in a C thread-local struct that
// every wrapper reaches with one call (no class reference, no reference counting). A default
// value expression still runs, and may make objects of other classes
// (`@Persisted var flag: BoolObject? = BoolObject(value: [true])`): those come out unmanaged,
// with their types' defaults (their own declared defaults were not collected), and the managed
// object drops them with the rest of its defaults. An object of the class being made cannot
// be among them (its default would make another, without end), so the class tells them apart.
//
// This runs for every object created, so the stack is a plain buffer (no copy-on-write checks)
// and the context is found through a C thread-local slot.

@usableFromInline
final class InitContext {
    // Thread-local by construction (one instance per thread), so unchecked exclusivity is safe.
    @usableFromInline @exclusivity(unchecked) var stack: UnsafeMutablePointer<any PersistableValue>
    @usableFromInline @exclusivity(unchecked) var count = 0
    @exclusivity(unchecked) var capacity = 64
    /// Persisted property counts per class, per thread (no lock on the object creation path).
    @exclusivity(unchecked) private var counts: [ObjectIdentifier: Int] = [:]
    @exclusivity(unchecked) private var lastClass: ObjectIdentifier?
    @exclusivity(unchecked) private var lastCount = 0
    /// Values decoded by `Persisted.init(from:)` for objects being decoded (Persisted+Codable).
    @exclusivity(unchecked) var decoded: [any PersistableValue] = []
    /// Per class: the wrapper layout of Codable models, nil for the others (Persisted+Codable).
    @exclusivity(unchecked) var codableLayouts: [ObjectIdentifier: CodableLayout?] = [:]
    @exclusivity(unchecked) var lastLayoutClass: ObjectIdentifier?
    @exclusivity(unchecked) var lastLayout: CodableLayout?

    init() {
        stack = .allocate(capacity: capacity)
    }

    deinit {
        stack.deinitialize(count: count)
        stack.deallocate()
    }

    @usableFromInline
    func push(_ value: any PersistableValue) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<any PersistableValue>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: stack, count: count)
            stack.deallocate()
            stack = bigger
            capacity *= 2
        }
        (stack + count).initialize(to: value)
        count += 1
    }

    /// Moves the top `n` values out, in push order.
    func pop(_ n: Int) -> [any PersistableValue] {
        let start = count - n
        let values = [any PersistableValue](unsafeUninitializedCapacity: n) { buffer, initialized in
            if let base = buffer.baseAddress { base.moveInitialize(from: stack + start, count: n) }
            initialized = n
        }
        count = start
        return values
    }

    func propertyCount(of object: Object) -> Int {
        let id = ObjectIdentifier(type(of: object))
        if id == lastClass { return lastCount }
        let n: Int
        if let known = counts[id] { n = known } else {
            n = ObjectSchema.propertyCount(of: object)
            counts[id] = n
        }
        lastClass = id
        lastCount = n
        return n
    }

    /// In managed creation, claims the next property slot and returns its raw index; -1
    /// outside managed creation (the caller then pushes its default).
    @usableFromInline
    static func claimManagedSlot() -> Int32 { Int32(truncatingIfNeeded: atoll_managed_creation_claim_slot()) }

    /// Runs `body` (which creates one object of class `type`) in managed creation.
    @inline(__always)
    static func managedCreation<T>(of type: Object.Type, _ body: () -> T) -> T {
        let previous = atoll_managed_creation_enter(classPointer(type))
        defer { atoll_managed_creation_leave(previous) }
        return body()
    }

    /// The identity of a class, as the C side compares it.
    @inline(__always)
    static func classPointer(_ type: Object.Type) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: Int(bitPattern: ObjectIdentifier(type)))
    }

    @usableFromInline
    static var current: InitContext {
        if let p = atoll_thread_slot_get() { return Unmanaged<InitContext>.fromOpaque(p).takeUnretainedValue() }
        let context = InitContext()
        // Kept for the thread's lifetime (one small object per thread that creates objects).
        atoll_thread_slot_set(Unmanaged.passRetained(context).toOpaque())
        return context
    }
}
