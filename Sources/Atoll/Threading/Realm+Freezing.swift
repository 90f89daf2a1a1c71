extension Realm {
    /// A frozen snapshot of `obj` at this realm's current version (`obj.freeze()`).
    public func freeze<T: Object>(_ obj: T) -> T { obj.freeze() }

    /// The live version of a frozen object in this realm's file, on the calling thread; nil
    /// when it was deleted since. A live object returns itself.
    public func thaw<T: Object>(_ obj: T) -> T? { obj.thaw() }

    /// A frozen snapshot of a collection: `Results`, `List`, `LinkingObjects` or
    /// `AnyRealmCollection`.
    public func freeze<C: RealmCollection>(_ collection: C) -> C {
        switch collection {
        case let r as Results<C.Element>: return r.freeze() as! C
        case let l as List<C.Element>: return l.freeze() as! C
        case let o as LinkingObjects<C.Element>: return o.freeze() as! C
        case let a as AnyRealmCollection<C.Element>: return a.freeze() as! C
        default: atollProgrammerError("cannot freeze a \(C.self)")
        }
    }
}
