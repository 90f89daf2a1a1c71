import AtollStorage

/// The compacted history's trees held in memory for a store whose trees live elsewhere (a
/// database): a trim loads the records of each object it folds into once (`load`, called from
/// `willTouchObject`), folds in memory, and writes back what changed (`changes`); a snapshot
/// chunk reads from records loaded up front. Keys and values are the same bytes as in the
/// relay file's trees, so `RelayBase` folds and chunks the same way over either.
///
/// Invariant: for every object key `load` was asked for, the overlay holds every record of that
/// object (its `objects` record and all `parts` that start with its key), so scans within an
/// object's prefix need nothing else.
package final class RelayBaseOverlay: RelayBaseWriting {
    /// Loads the records of one object: its `objects` record (if any) and its `parts`, each as
    /// (key, value).
    package typealias Loader = (_ objectKey: [UInt8]) throws -> (object: [UInt8]?, parts: [([UInt8], [UInt8])])

    private var trees: [String: [[UInt8]: [UInt8]]] = [RelayBase.objects: [:], RelayBase.parts: [:]]
    /// Keys written (a value) or deleted (nil) since the overlay was filled.
    private var dirty: [String: [[UInt8]: [UInt8]?]] = [RelayBase.objects: [:], RelayBase.parts: [:]]
    private var loaded: Set<[UInt8]> = []
    private let loader: Loader?
    /// Whether folding writes the index of tombstones (`RelayBase.deleted`): the store keeps it.
    package let indexesDeletions: Bool

    /// An overlay that loads objects on demand (for folding), or none (records given with
    /// `fill`), for a store that keeps the index of tombstones or not.
    package init(indexesDeletions: Bool = false, loader: Loader? = nil) {
        self.indexesDeletions = indexesDeletions
        self.loader = loader
    }

    /// Adds records read from the store (not changes).
    package func fill(_ tree: String, _ records: [([UInt8], [UInt8])]) {
        for (k, v) in records { trees[tree, default: [:]][k] = v }
    }

    /// Marks objects whose records were all given to `fill`.
    package func markLoaded(_ objectKeys: [[UInt8]]) {
        loaded.formUnion(objectKeys)
    }

    package func willTouchObject(_ objectKey: [UInt8]) throws {
        guard let loader, loaded.insert(objectKey).inserted else { return }
        let records = try loader(objectKey)
        if let object = records.object, dirty[RelayBase.objects]?[objectKey] == nil {
            trees[RelayBase.objects, default: [:]][objectKey] = object
        }
        for (k, v) in records.parts where dirty[RelayBase.parts]?[k] == nil {
            trees[RelayBase.parts, default: [:]][k] = v
        }
    }

    package func internalValue(_ tree: String, key: [UInt8]) throws -> [UInt8]? {
        trees[tree]?[key]
    }

    package func forEachInternalEntry(_ tree: String, from: [UInt8], prefix: [UInt8],
                                      _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws
    {
        let start = from.lexicographicallyPrecedes(prefix) ? prefix : from
        let keys = (trees[tree] ?? [:]).keys
            .filter { !$0.lexicographicallyPrecedes(start) && $0.starts(with: prefix) }
            .sorted { $0.lexicographicallyPrecedes($1) }
        for k in keys {
            guard let v = trees[tree]?[k] else { continue }
            let more = try k.withUnsafeBytes { kb in try v.withUnsafeBytes { vb in try body(kb, vb) } }
            guard more else { return }
        }
    }

    package func putInternal(_ tree: String, key: [UInt8], value: [UInt8]) throws {
        trees[tree, default: [:]][key] = value
        dirty[tree, default: [:]][key] = .some(value)
    }

    @discardableResult
    package func deleteInternal(_ tree: String, key: [UInt8]) throws -> Bool {
        let existed = trees[tree]?.removeValue(forKey: key) != nil
        dirty[tree, default: [:]][key] = .some(nil)
        return existed
    }

    /// What folding changed, per tree: keys with their new value, or nil for deleted ones.
    package func changes(_ tree: String) -> [([UInt8], [UInt8]?)] {
        (dirty[tree] ?? [:]).map { ($0.key, $0.value) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
    }
}
