/// A growable buffer of raw bytes with stable-until-mutated storage, for mutable leaves.
/// Unlike an Array it hands out plain pointers that views can hold without copying; a view is
/// valid until the next mutation of the buffer.
final class RawBuffer {
    private(set) var pointer: UnsafeMutableRawPointer
    private(set) var byteCount: Int = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        pointer = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { pointer.deallocate() }

    func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        var c = capacity
        while c < needed { c *= 2 }
        let p = UnsafeMutableRawPointer.allocate(byteCount: c, alignment: 16)
        p.copyMemory(from: pointer, byteCount: byteCount)
        pointer.deallocate()
        pointer = p
        capacity = c
    }

    /// Opens a gap of `count` bytes at `offset` (contents undefined) and returns its address.
    @discardableResult
    func insertGap(at offset: Int, count: Int) -> UnsafeMutableRawPointer {
        reserve(byteCount + count)
        if offset < byteCount { (pointer + offset + count).copyMemory(from: pointer + offset, byteCount: byteCount - offset) }
        byteCount += count
        return pointer + offset
    }

    func remove(at offset: Int, count: Int) {
        let tail = byteCount - offset - count
        if tail > 0 { (pointer + offset).copyMemory(from: pointer + offset + count, byteCount: tail) }
        byteCount -= count
    }

    /// Appends bytes and returns the offset they start at.
    @discardableResult
    func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let offset = byteCount
        reserve(byteCount + bytes.count)
        if let src = bytes.baseAddress, bytes.count > 0 { (pointer + offset).copyMemory(from: src, byteCount: bytes.count) }
        byteCount += bytes.count
        return offset
    }

    func removeAll() { byteCount = 0 }

    /// Keeps bytes [0, count), dropping the rest.
    func truncate(to count: Int) { byteCount = min(byteCount, count) }

    /// Takes bytes [offset, byteCount) out into a new buffer.
    func split(at offset: Int) -> RawBuffer {
        let tail = RawBuffer(capacity: byteCount - offset)
        tail.append(UnsafeRawBufferPointer(start: pointer + offset, count: byteCount - offset))
        byteCount = offset
        return tail
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: byteCount) }
}
