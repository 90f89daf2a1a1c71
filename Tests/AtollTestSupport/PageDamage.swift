import Foundation

/// Damages pages of an Atoll file in place, as a failing disk or a stray write would, for the
/// tests of what reading a damaged file does (README, "Failed reads").
///
/// Pages are 4096 bytes; the page type is the byte at offset 4 (1 B+tree leaf, 2 B+tree inner
/// node, 3 cluster leaf, 4 cluster inner node, 5 blob; docs/FORMAT.md). Pages are found by type
/// and by a marker they contain (a string value, a property name), which finds the live page and
/// any stale copy of it left by earlier versions: the damage hits whichever one is read.
public enum PageDamage: CaseIterable, CustomStringConvertible, Sendable {
    /// Every byte zero (a page that was never written, or wiped).
    case zeroed
    /// Plausible-looking bytes whose page type is none (a stray write).
    case overwritten

    public static let pageBytes = 4096
    public static let clusterLeaf: UInt8 = 3
    public static let btreeLeaf: UInt8 = 1

    public var description: String { self == .zeroed ? "zeroed" : "overwritten" }

    /// Damages every page of `pageType` in the file at `path` that contains `marker`; returns
    /// how many. The file must not be open in this process (its pages are mapped).
    @discardableResult
    public func apply(toFile path: String, pageType: UInt8, containing marker: String) throws -> Int {
        let url = URL(fileURLWithPath: path)
        let bytes = [UInt8](try Data(contentsOf: url))
        let needle = Array(marker.utf8)
        let handle = try FileHandle(forUpdating: url)
        defer { try? handle.close() }
        var damaged = 0
        // Pages 0-2 are the header and the root slots.
        for start in stride(from: 3 * Self.pageBytes, to: bytes.count - Self.pageBytes + 1, by: Self.pageBytes)
        where bytes[start + 4] == pageType && Self.contains(bytes[start..<(start + Self.pageBytes)], needle) {
            try handle.seek(toOffset: UInt64(start))
            try handle.write(contentsOf: Data(damagedPage()))
            damaged += 1
        }
        return damaged
    }

    private func damagedPage() -> [UInt8] {
        switch self {
        case .zeroed: [UInt8](repeating: 0, count: Self.pageBytes)
        case .overwritten: (0..<Self.pageBytes).map { UInt8(truncatingIfNeeded: 0xA5 &+ ($0 & 0x3F)) }
        }
    }

    static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return needle.isEmpty }
        var i = haystack.startIndex
        while i + needle.count <= haystack.endIndex {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
