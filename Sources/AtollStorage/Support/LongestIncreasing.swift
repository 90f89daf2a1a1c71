// The longest strictly increasing subsequence, shared by the diffs that keep the most elements in
// place: collection notifications (Atoll's CollectionDiff) and sync's extraction of a list of
// embedded objects (AtollSync's SyncWriter+EmbeddedLists).

package enum LongestIncreasing {
    /// The indexes into `values` of one longest strictly increasing subsequence, in ascending
    /// order. O(n log n).
    package static func indexes(_ values: [Int]) -> [Int] {
        var tails: [Int] = [] // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var out: [Int] = []
        var i = tails.last ?? -1
        while i >= 0 {
            out.append(i)
            i = previous[i]
        }
        return out.reversed()
    }
}
