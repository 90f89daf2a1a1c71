import AtollStorage
import Dispatch

// Observing a collection nested in a managed mixed value (`AnyRealmValue.listValue` /
// `.dictionaryValue` of a managed object, at any depth).
//
// Such a collection lives at a path inside one stored mixed value (NestedMixedLink), and every
// change to it rewrites that whole value, so the log says only that the property changed. The
// observer therefore reads the collection at its path after every commit that touches the
// owner's table and compares it with what it read before: a map by key (as Map observers do), a
// list by its common beginning and end: the elements between them are modified where the old
// and the new list both have one, deleted or inserted where only one has. That is exactly the
// change for one insertion, deletion or assignment, or for an append or `removeAll`, which are
// what RealmSwift's tests pin down (MixedCollectionTest.swift); for larger edits between two
// commits it is a correct but not minimal description.
//
// When the collection stops existing (its object is deleted, or the value holding it no longer
// has a collection of that kind at that path, as when the property or the key is assigned a
// scalar), the observer reports every element as deleted and then stays silent: realm-core's
// `collection_root_was_deleted` (object-store's "nested dictionary in mixed" tests).
//
// Before each `.update`, the observed collection's elements are refreshed from storage, so the
// collection handed to the block reads as the realm does now.

extension NestedMixedLink {
    /// The stored value of the collection now: nil when its object is gone or the path leads to
    /// no value. Throws when the object cannot be read.
    func currentValue() throws -> StorageValue? {
        let table = owner.tableKey
        guard realm.transaction.spec(of: table) != nil else { return nil }
        let t = try realm.transaction.table(table)
        guard let row = try t.locate(key) else { return nil }
        var value: StorageValue
        switch root {
        case .property:
            value = try t.value(row, column)
        case .listElement(let i):
            let list = try t.list(row, column)
            guard i >= 0, i < list.count else { return nil }
            value = list.value(at: i)
        case .mapValue(let k):
            guard let i = try t.mapKeys(row, column).firstIndex(of: k) else { return nil }
            let values = try t.list(row, column)
            guard i < values.count else { return nil }
            value = values.value(at: i)
        }
        for step in path {
            switch (step, value) {
            case (.index(let i), .mixedList(let l)) where i >= 0 && i < l.count:
                value = l[i]
            case (.key(let k), .mixedMap(let m)):
                guard let e = m[k] else { return nil }
                value = e
            default:
                return nil
            }
        }
        return value
    }

    /// The same collection read in `realm` (another Realm instance of the same file).
    func rebased(on realm: Realm) throws -> NestedMixedLink {
        NestedMixedLink(realm: realm, owner: try realm.binding(for: owner.schema.objectType), key: key, column: column, root: root, path: path)
    }

    /// Registers an observer of the collection: `change` gets the value before and the value
    /// now (nil once the collection no longer exists, after which it is not called again)
    /// after every commit that touches the owner's table.
    func observeValue(flag: ObservationFlag, onInitial: @escaping () -> Void,
                      change: @escaping (_ old: StorageValue, _ new: StorageValue?, _ notify: Bool) -> Void,
                      onError: @escaping (any Error) -> Void) -> NotificationToken
    {
        realm.verifyThread()
        realm.requireNoWriteForObserving()
        let ownerTable = owner.tableKey
        var previous: StorageValue?
        do { previous = try currentValue() } catch {
            flag.cancel()
            onError(error)
            return NotificationToken(flag: flag)
        }
        if let p = previous, !p.isNestedCollection { previous = nil }
        realm.observers.add(flag: flag, fail: { onError($0) }) { _, summary, notify in
            guard let old = previous else { return }
            guard summary.touches(ownerTable) else { return }
            var now = try self.currentValue()
            switch (old, now) {
            case (.mixedList, .mixedList?), (.mixedMap, .mixedMap?): break
            default: now = nil
            }
            previous = now
            change(old, now, notify)
        }
        onInitial()
        return NotificationToken(flag: flag)
    }

    /// The deleted (old), inserted and modified (new) positions from `old` to `new`.
    static func listChange(old: [StorageValue], new: [StorageValue]) -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let oldMiddle = old.count - prefix - suffix, newMiddle = new.count - prefix - suffix
        let common = min(oldMiddle, newMiddle)
        let modifications = (prefix..<(prefix + common)).filter { old[$0] != new[$0] }
        let deletions = Array((prefix + common)..<(prefix + oldMiddle))
        let insertions = Array((prefix + common)..<(prefix + newMiddle))
        return (deletions, insertions, modifications)
    }

    /// The removed, added and modified keys from `old` to `new`, each in key order.
    static func mapChange(old: [String: StorageValue], new: [String: StorageValue]) -> (deletions: [String], insertions: [String], modifications: [String]) {
        let oldKeys = old.keys.sorted(by: StorageValue.mapKeyPrecedes)
        let newKeys = new.keys.sorted(by: StorageValue.mapKeyPrecedes)
        return (oldKeys.filter { new[$0] == nil }, newKeys.filter { old[$0] == nil },
                newKeys.filter { k in old[k].map { $0 != new[k] } ?? false })
    }
}

extension List where Element == AnyRealmValue {
    /// Replaces the elements with `value`'s (a stored nested list) without writing them back.
    func refreshNested(from value: StorageValue?) {
        guard let link = nestedLink else { return }
        var fresh: [AnyRealmValue] = []
        if let value, case .list(let l) = AnyRealmValue.nested(value, realm: link.realm, link: link) { fresh = l.storage }
        nestedLink = nil
        storage = fresh
        nestedLink = link
    }

    /// `observe` for a list nested in a managed mixed value.
    func observeNested(_ link: NestedMixedLink, on queue: DispatchQueue?, _ block: @escaping (RealmCollectionChange<List<AnyRealmValue>>) -> Void) -> NotificationToken {
        link.realm.verifyThread()
        if let queue {
            return link.realm.observeOnQueue(queue, source: link, { realm, link in try link.rebased(on: realm) }, onError: { block(.error($0)) }) { link, flag in
                let list = List<AnyRealmValue>()
                list.nestedLink = link
                do { list.refreshNested(from: try link.currentValue()) } catch {
                    flag.cancel()
                    block(.error(error))
                    return NotificationToken(flag: flag)
                }
                return list.observeNested(link, flag: flag, block)
            }
        }
        return observeNested(link, flag: ObservationFlag(), block)
    }

    private func observeNested(_ link: NestedMixedLink, flag: ObservationFlag, _ block: @escaping (RealmCollectionChange<List<AnyRealmValue>>) -> Void) -> NotificationToken {
        link.observeValue(flag: flag, onInitial: { block(.initial(self)) }, change: { old, new, notify in
            guard case .mixedList(let before) = old else { return }
            var after: [StorageValue] = []
            if case .mixedList(let l)? = new { after = l }
            let c = NestedMixedLink.listChange(old: before, new: after)
            self.refreshNested(from: new)
            guard notify, !(c.deletions.isEmpty && c.insertions.isEmpty && c.modifications.isEmpty) else { return }
            block(.update(self, deletions: c.deletions, insertions: c.insertions, modifications: c.modifications))
        }, onError: { block(.error($0)) })
    }
}

extension Map where Key == String, Value == AnyRealmValue {
    /// Replaces the entries with `value`'s (a stored nested dictionary) without writing them back.
    func refreshNested(from value: StorageValue?) {
        guard let link = nestedLink else { return }
        var fresh: [String: AnyRealmValue] = [:]
        if let value, case .dictionary(let m) = AnyRealmValue.nested(value, realm: link.realm, link: link) { fresh = m.storage }
        nestedLink = nil
        storage = fresh
        nestedLink = link
    }

    /// `observe` for a dictionary nested in a managed mixed value.
    func observeNested(_ link: NestedMixedLink, on queue: DispatchQueue?, _ block: @escaping (RealmMapChange<Map<String, AnyRealmValue>>) -> Void) -> NotificationToken {
        link.realm.verifyThread()
        if let queue {
            return link.realm.observeOnQueue(queue, source: link, { realm, link in try link.rebased(on: realm) }, onError: { block(.error($0)) }) { link, flag in
                let map = Map<String, AnyRealmValue>()
                map.nestedLink = link
                do { map.refreshNested(from: try link.currentValue()) } catch {
                    flag.cancel()
                    block(.error(error))
                    return NotificationToken(flag: flag)
                }
                return map.observeNested(link, flag: flag, block)
            }
        }
        return observeNested(link, flag: ObservationFlag(), block)
    }

    private func observeNested(_ link: NestedMixedLink, flag: ObservationFlag, _ block: @escaping (RealmMapChange<Map<String, AnyRealmValue>>) -> Void) -> NotificationToken {
        link.observeValue(flag: flag, onInitial: { block(.initial(self)) }, change: { old, new, notify in
            guard case .mixedMap(let before) = old else { return }
            var after: [String: StorageValue] = [:]
            if case .mixedMap(let m)? = new { after = m }
            let c = NestedMixedLink.mapChange(old: before, new: after)
            self.refreshNested(from: new)
            guard notify, !(c.deletions.isEmpty && c.insertions.isEmpty && c.modifications.isEmpty) else { return }
            block(.update(self, deletions: c.deletions, insertions: c.insertions, modifications: c.modifications))
        }, onError: { block(.error($0)) })
    }
}
