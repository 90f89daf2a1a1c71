import AtollStorage

/// The index changes between two orderings of object keys (or of other identities, such as the
/// entries of the conflict ledger), for collection notifications.
///
/// Deletions are old indices of keys no longer present; insertions are new indices of new keys.
/// Keys present in both that changed relative order are reported as deleted and inserted: the
/// longest increasing subsequence of their new positions stays, the rest moved.
/// Modifications are new indices of kept keys that `isModified` says changed.
enum CollectionDiff {
    static func compute<Key: Hashable>(old: [Key], new: [Key], isModified: (Key) throws -> Bool) rethrows
        -> (deletions: [Int], insertions: [Int], modifications: [Int])
    {
        // Positions of each key in the new ordering (lists may hold duplicates: match in order).
        var newPositions: [Key: [Int]] = [:]
        for (i, k) in new.enumerated() { newPositions[k, default: []].append(i) }
        var used: [Key: Int] = [:]
        var deletions: [Int] = []
        var matched: [(old: Int, new: Int)] = []
        for (i, k) in old.enumerated() {
            let n = used[k, default: 0]
            if let positions = newPositions[k], n < positions.count {
                matched.append((i, positions[n]))
                used[k] = n + 1
            } else {
                deletions.append(i)
            }
        }
        let stay = Set(LongestIncreasing.indexes(matched.map(\.new)))
        var insertedSet = Set<Int>()
        var modifications: [Int] = []
        for (j, m) in matched.enumerated() {
            if stay.contains(j) {
                if try isModified(new[m.new]) { modifications.append(m.new) }
            } else {
                deletions.append(m.old)
                insertedSet.insert(m.new)
            }
        }
        let matchedNew = Set(matched.map(\.new))
        for i in new.indices where !matchedNew.contains(i) { insertedSet.insert(i) }
        return (deletions.sorted(), insertedSet.sorted(), modifications.sorted())
    }
}
