#if canImport(Glibc)
import Glibc
#endif

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
// When Atoll itself creates an object to represent a stored one (`managedCreation`), the
// defaults are not collected: only the indices are.

final class InitContext {
    var values: [any PersistableValue] = []
    /// Persisted property counts per class, per thread (no lock on the object creation path).
    private var counts: [ObjectIdentifier: Int] = [:]

    func propertyCount(of object: Object) -> Int {
        let id = ObjectIdentifier(type(of: object))
        if let n = counts[id] { return n }
        let n = ObjectSchema.propertyCount(of: object)
        counts[id] = n
        return n
    }
    var managedCreation = 0

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<InitContext>.fromOpaque(pointer).release() }
        }
        return key
    }()

    static var current: InitContext {
        if let p = pthread_getspecific(key) { return Unmanaged<InitContext>.fromOpaque(p).takeUnretainedValue() }
        let context = InitContext()
        pthread_setspecific(key, Unmanaged.passRetained(context).toOpaque())
        return context
    }
}
