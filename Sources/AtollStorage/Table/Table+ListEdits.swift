// Several edits of one list as one list write: the edits are checked first (nothing changes when
// one is invalid), applied to the list's values in memory, and stored once, with one log
// instruction per edit, so notifications and sync see exactly what per-element calls would
// have produced. Replacing k elements of a list of n costs O(n + k) instead of k list writes
// of O(n) each.

/// One edit of a list, at the positions the list has when the edit is applied.
public enum ListEdit: Sendable, Equatable {
    case insert(Int, StorageValue)
    case erase(Int)
    case set(Int, StorageValue)
    case move(from: Int, to: Int)
}

extension Table {
    /// Applies `edits` in order to the list in column `c` of object `key`, as one write.
    ///
    /// - Throws: `.invalidArgument` naming the first edit out of bounds, a validation error for
    ///   an element the column cannot hold; nothing is changed then.
    public func listApply(_ key: ObjectKey, _ c: Int, _ edits: [ListEdit]) throws {
        guard !edits.isEmpty else { return }
        let col = try listColumn(c)
        var values = try mutableList(key, c)
        // Check every edit against the count the list will have when it runs.
        var count = values.count
        for (n, edit) in edits.enumerated() {
            func outOfBounds(_ what: String) -> AtollError {
                AtollError(.invalidArgument, "\(what) is out of bounds for '\(name).\(col.name)' with \(count) elements (edit \(n + 1) of \(edits.count))")
            }
            switch edit {
            case .insert(let i, let v):
                guard i >= 0, i <= count else { throw outOfBounds("index \(i)") }
                try validateElement(v, c)
                count += 1
            case .erase(let i):
                guard i >= 0, i < count else { throw outOfBounds("index \(i)") }
                count -= 1
            case .set(let i, let v):
                guard i >= 0, i < count else { throw outOfBounds("index \(i)") }
                try validateElement(v, c)
            case .move(let from, let to):
                guard from >= 0, from < count, to >= 0, to < count else { throw outOfBounds("moving from \(from) to \(to)") }
            }
        }
        var instructions: [LogInstruction] = []
        instructions.reserveCapacity(edits.count)
        for edit in edits {
            switch edit {
            case .insert(let i, let v):
                values.insert(v, at: i)
                try linkElementChanged(col, c, key, old: nil, new: v)
                instructions.append(.listInsert(self.key, key, column: c, index: i, value: v))
            case .erase(let i):
                try linkElementChanged(col, c, key, old: values[i], new: nil)
                values.remove(at: i)
                instructions.append(.listErase(self.key, key, column: c, index: i, implicit: false))
            case .set(let i, let v):
                try linkElementChanged(col, c, key, old: values[i], new: v)
                values[i] = v
                instructions.append(.listSet(self.key, key, column: c, index: i, value: v))
            case .move(let from, let to):
                guard from != to else { continue }
                values.insert(values.remove(at: from), at: to)
                instructions.append(.listMove(self.key, key, column: c, from: from, to: to))
            }
        }
        guard !instructions.isEmpty else { return }
        try commitListChange(key, c, values, instructions)
    }
}
