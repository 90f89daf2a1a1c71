import AtollStorage

// A mixed value that links an object (a typed link: the target's table and key) does not sync
// yet. A link travels by its target's primary key, and the changeset format has a form for a
// link whose target class the schema names (the link column's), not for one that names its
// class itself. Until it has one, every place that turns a stored value into a travelling one
// refuses a typed link with this error, and a changeset that carries one is malformed.

extension SyncValue {
    /// Throws when `v` is a typed link, which sync cannot carry (see above).
    static func refuseTypedLink(_ v: StorageValue, _ c: SyncedClass, _ column: Int) throws {
        if v.isNestedCollection {
            throw AtollError(.typeMismatch,
                "'\(c.name).\(c.spec.columns[column].name)' holds a nested list or dictionary in a mixed value (AnyRealmValue), which sync does not carry yet")
        }
        guard case .typedLink = v else { return }
        throw AtollError(.typeMismatch,
            "'\(c.name).\(c.spec.columns[column].name)' holds an object in a mixed value (AnyRealmValue), which sync does not carry yet; store the object's primary key instead, or a link property")
    }
}
