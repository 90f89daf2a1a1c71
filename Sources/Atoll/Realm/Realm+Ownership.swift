import AtollStorage

// Which managed objects a realm may use. Object keys are unique only within one database, so
// every API that takes an object (delete, add, create, links, list elements, KVC, queries,
// index(of:)) asks here before using its key: an object of another file or in-memory realm
// would otherwise stand for whatever object of this one has the same key.

extension Realm {
    /// Whether `state` describes an object of this realm's database (any Realm instance of the
    /// same file or in-memory identifier, live or frozen).
    @inline(__always)
    func owns(_ state: ManagedObjectState) -> Bool { state.realm.database === database }

    /// The managed state of `object` for an operation (`use`, "delete" or "link to") that needs
    /// an object of this realm. Throws `.invalidArgument` for an unmanaged object or one of
    /// another realm.
    func ownedState(of object: Object, for use: @autoclosure () -> String) throws -> ManagedObjectState {
        guard let state = object._managed else {
            throw AtollError(.invalidArgument, "cannot \(use()) an unmanaged '\(object.objectSchema.className)' object; it belongs to no Realm")
        }
        guard owns(state) else {
            throw AtollError(.invalidArgument, "cannot \(use()) a '\(state.schema.className)' object of another Realm (\(state.realm.configuration.identity)) in \(configuration.identity); an object can only be used in the Realm it belongs to")
        }
        return state
    }
}
