public import Foundation
import AtollStorage

// List as a MutableCollection and a RangeReplaceableCollection, with RealmSwift's non-mutating
// spellings (List is a class: `let list = dog.tags; list.removeFirst(2)`).
//
// On a managed list every call below is one list write, whatever the number of elements: the
// edits are checked, applied to the list's values once and logged one instruction per element
// (`Table.listApply`), so a call costs O(n + k) for k elements of a list of n. An invalid call
// (an index out of bounds) records the error and the enclosing write throws, as for any invalid
// operation inside a write (README, "Differences from RealmSwift"); on an unmanaged list it is a
// programming error.

extension List: MutableCollection, RangeReplaceableCollection {
    public typealias SubSequence = Slice<List<Element>>

    /// The elements in `bounds` (a view of the list), or, when set, replaces them (in a write,
    /// when managed).
    public subscript(bounds: Range<Int>) -> Slice<List<Element>> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: Array(newValue)) }
    }

    /// Replaces the elements in `subrange` with `newElements`. One list write when managed:
    /// O(n + k).
    ///
    /// ```swift
    /// try realm.write { person.dogs.replaceSubrange(0..<2, with: [rex]) }
    /// ```
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
        where C.Element == Element, R.Bound == Int
    {
        guard managed != nil else {
            let range = checkedUnmanagedRange(subrange)
            storage.replaceSubrange(range, with: newElements)
            return
        }
        let bounds = subrange.relative(to: 0..<count)
        let lower = bounds.lowerBound
        let new = Array(newElements)
        edit("replaceSubrange") { w in
            var edits = [ListEdit](repeating: .erase(lower), count: Swift.max(0, bounds.count))
            for e in new.reversed() { edits.append(.insert(lower, try storageValue(e, &w))) }
            return edits
        }
    }

    /// Inserts the elements of `newElements` at `i`, in order. One list write when managed.
    public func insert<C: Collection>(contentsOf newElements: C, at i: Int) where C.Element == Element {
        guard managed != nil else {
            guard i >= 0, i <= storage.count else { outOfBounds("index \(i)", count: storage.count) }
            storage.insert(contentsOf: newElements, at: i)
            return
        }
        let new = Array(newElements)
        guard !new.isEmpty else { return }
        edit("insert(contentsOf:at:)") { w in
            var edits: [ListEdit] = []
            edits.reserveCapacity(new.count)
            for (n, e) in new.enumerated() { edits.append(.insert(i + n, try storageValue(e, &w))) }
            return edits
        }
    }

    /// Removes the elements in `bounds` (the objects stay in the realm).
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        replaceSubrange(bounds, with: EmptyCollection())
    }

    /// Removes the first `number` elements; removing more than there are is an error.
    public func removeFirst(_ number: Int = 1) {
        let n = count
        guard number >= 0, number <= n else { return tooMany(number, count: n) }
        removeSubrange(0..<number)
    }

    /// Removes the last `number` elements; removing more than there are is an error.
    public func removeLast(_ number: Int = 1) {
        let n = count
        guard number >= 0, number <= n else { return tooMany(number, count: n) }
        removeSubrange((n - number)..<n)
    }

    /// Removes the elements at `offsets` (SwiftUI's `onDelete`). One list write when managed.
    public func remove(atOffsets offsets: IndexSet) {
        guard managed != nil else {
            for offset in offsets.reversed() {
                guard offset < storage.count else { outOfBounds("index \(offset)", count: storage.count) }
                storage.remove(at: offset)
            }
            return
        }
        let edits = offsets.reversed().map { ListEdit.erase($0) }
        guard !edits.isEmpty else { return }
        edit("remove(atOffsets:)") { _ in edits }
    }

    /// Moves the elements at `offsets` to `destination` (SwiftUI's `onMove`), one at a time as
    /// RealmSwift does. One list write when managed.
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        let moves = offsets.map { (from: $0, to: destination > $0 ? destination - 1 : destination) }
        guard managed != nil else {
            for (from, to) in moves {
                guard from < storage.count, to >= 0, to < storage.count else { outOfBounds("moving from \(from) to \(to)", count: storage.count) }
                storage.insert(storage.remove(at: from), at: to)
            }
            return
        }
        guard !moves.isEmpty else { return }
        edit("move(fromOffsets:toOffset:)") { _ in moves.map { ListEdit.move(from: $0.from, to: $0.to) } }
    }

    // MARK: helpers

    /// Runs one batch of edits on the managed list, inside the realm's write.
    private func edit(_ what: String, _ makeEdits: (inout ObjectWriter) throws -> [ListEdit]) {
        write(what) { t, m, w in
            let edits = try makeEdits(&w)
            try t.listApply(m.key, m.column, edits)
        }
    }

    private func checkedUnmanagedRange<R: RangeExpression>(_ subrange: R) -> Range<Int> where R.Bound == Int {
        let range = subrange.relative(to: storage.indices)
        guard range.lowerBound >= 0, range.upperBound <= storage.count else {
            outOfBounds("range \(range.lowerBound)..<\(range.upperBound)", count: storage.count)
        }
        return range
    }

    private func outOfBounds(_ what: String, count: Int) -> Never {
        atollProgrammerError("\(what) is out of bounds for a List of \(count) elements")
    }

    /// Removing more elements than there are: recorded (the write throws) on a managed list, a
    /// programming error on an unmanaged one.
    private func tooMany(_ number: Int, count: Int) {
        let message = "cannot remove \(number) elements from a List of \(count) elements"
        guard let m = managed else { atollProgrammerError(message) }
        m.realm.performWrite("removing elements") { _ in throw AtollError(.invalidArgument, message) }
    }
}
