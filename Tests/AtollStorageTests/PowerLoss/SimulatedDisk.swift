#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
@testable import AtollStorage
import AtollTestSupport

/// A disk that can lose power, built from the engine's durability points (DurabilitySeam).
///
/// For every data file of one directory it keeps the *durable image*: the bytes and size a power
/// failure cannot take away. A full sync (fdatasync) makes the whole file and its size durable, a
/// range sync (msync) that range; growth and truncation are durable at the next full sync; a name
/// (a created or renamed file) is durable once its directory is synced.
///
/// At every durability point (just before a sync starts, at each resize, rename and directory
/// sync, and wherever the test asks) it records a `CrashPoint` for one watched path: which files
/// the path may name after a power failure, and for each its durable image, its current contents
/// and the sizes it had since its last full sync. `CrashPoint.image` then makes one file a power
/// failure at that point can leave: the durable image plus a seeded random subset of the 512-byte
/// sectors or 4 KiB pages that differ from the current contents (dropped, reordered and torn
/// writes), at one of those sizes.
final class SimulatedDisk: DurabilityObserver {
    /// What one file may look like after a crash.
    struct FileCandidate: Sendable {
        var durable: [UInt8]
        var current: [UInt8]
        var sizes: [Int]
    }

    struct CrashPoint: Sendable {
        /// Where the crash happens (for failure messages).
        let label: String
        /// The newest version whose operation had returned when the point was reached (nil: the
        /// database had not been created yet).
        let versionReturned: UInt64?
        /// The files the watched path may name after the crash (nil: no file).
        let candidates: [FileCandidate?]

        /// One file a power failure here may leave at the watched path (nil: none), drawn with
        /// `rng`, and a description of the draw.
        func image(using rng: inout SeededGenerator) -> (bytes: [UInt8]?, description: String) {
            guard let chosen = rng.pick(candidates), let file = chosen else {
                return (nil, "no file (its name was not durable)")
            }
            let size = rng.pick(file.sizes) ?? file.durable.count
            let unit = rng.chance(50) ? 512 : 4096
            let keepPercent = rng.pick([0, 5, 50, 95, 100, Int.random(in: 0...100, using: &rng)]) ?? 50
            var bytes = [UInt8](repeating: 0, count: size)
            var differing = 0
            var kept = 0
            bytes.withUnsafeMutableBytes { out in
                file.durable.withUnsafeBytes { durable in
                    file.current.withUnsafeBytes { current in
                        let durableEnd = min(size, durable.count)
                        if durableEnd > 0 { out.baseAddress!.copyMemory(from: durable.baseAddress!, byteCount: durableEnd) }
                        var offset = 0
                        while offset < min(size, current.count) {
                            let length = min(offset + unit, size, current.count) - offset
                            if memcmp(out.baseAddress! + offset, current.baseAddress! + offset, length) != 0 {
                                differing += 1
                                if rng.chance(keepPercent) {
                                    kept += 1
                                    (out.baseAddress! + offset).copyMemory(from: current.baseAddress! + offset, byteCount: length)
                                }
                            }
                            offset += unit
                        }
                    }
                }
            }
            return (bytes, "\(size) bytes (durable \(file.durable.count), current \(file.current.count)), \(kept) of \(differing) differing \(unit)-byte units written")
        }
    }

    private struct FileState {
        var durable: [UInt8]
        var sizes: [Int]
        /// Open descriptors of the file (the newest first used to read it).
        var fds: [Int32] = []
        /// Contents when its last descriptor closed.
        var lastContents: [UInt8] = []
    }

    private struct State {
        var files: [UInt64: FileState] = [:]
        var durableNames: [String: UInt64] = [:]
        var currentNames: [String: UInt64] = [:]
        var points: [CrashPoint] = []
        var recording = false
        var versionReturned: UInt64?
        var events: [String: Int] = [:]
        var eventLog: [String] = []
    }

    let directory: String
    let watchedPath: String
    private let state = AtollLock(State())

    /// Observes the data files in `directory` (registered until `stop`); crash points are
    /// recorded for the file named `watchedName` in it.
    init(directory: String, watchedName: String) {
        let canonical = Database.canonicalPath(directory)
        self.directory = canonical
        watchedPath = canonical + "/" + watchedName
        DurabilitySeam.register(self, directory: canonical)
    }

    func stop() { DurabilitySeam.unregister(self) }

    /// Starts or stops recording crash points.
    func setRecording(_ on: Bool) { state.withLock { $0.recording = on } }

    /// The newest version whose operation has returned (crash points recorded from now on must
    /// keep it).
    func setVersionReturned(_ v: UInt64?) { state.withLock { $0.versionReturned = v } }

    /// The crash points recorded since the last call.
    func takeCrashPoints() -> [CrashPoint] {
        state.withLock { s in
            defer { s.points.removeAll() }
            return s.points
        }
    }

    /// How many durability points of each kind the files went through.
    var eventCounts: [String: Int] { state.withLock { $0.events } }

    /// The durability points so far, in order (their crash point labels).
    var eventLog: [String] { state.withLock { $0.eventLog } }

    /// A crash point wherever the test asks (between operations).
    func crashPoint(_ label: String) { state.withLock { record(label, &$0) } }

    // MARK: DurabilityObserver

    func opened(path: String, fd: Int32, created: Bool) {
        state.withLock { s in
            s.events[created ? "creations" : "opens", default: 0] += 1
            let name = Database.canonicalPath(path)
            let inode = Self.inode(fd)
            if created || s.files[inode] == nil {
                let contents = created ? [] : Self.contents(fd)
                s.files[inode] = FileState(durable: contents, sizes: [contents.count])
                if !created { s.durableNames[name] = inode }
            }
            s.files[inode]?.fds.insert(fd, at: 0)
            s.currentNames[name] = inode
            record("opened \(Self.short(path))\(created ? " (created)" : "")", &s)
        }
    }

    func willSync(path: String, fd: Int32, range: Range<Int>?) {
        state.withLock { s in
            s.events[range == nil ? "fdatasyncs" : "range syncs", default: 0] += 1
            record("before \(range.map { "sync of \($0)" } ?? "fdatasync") of \(Self.short(path))", &s)
        }
    }

    func didSync(path: String, fd: Int32, range: Range<Int>?) {
        state.withLock { s in
            let inode = Self.inode(fd)
            guard var file = s.files[inode] else { return }
            let now = Self.contents(fd)
            if let range {
                if file.durable.count < range.upperBound {
                    file.durable.append(contentsOf: repeatElement(0, count: range.upperBound - file.durable.count))
                }
                let end = min(range.upperBound, now.count)
                if range.lowerBound < end { file.durable.replaceSubrange(range.lowerBound..<end, with: now[range.lowerBound..<end]) }
            } else {
                file.durable = now
                file.sizes = [now.count]
            }
            s.files[inode] = file
        }
    }

    func didResize(path: String, fd: Int32, toBytes: Int) {
        state.withLock { s in
            let before = s.files[Self.inode(fd)]?.sizes.last ?? 0
            s.events[toBytes > before ? "grows" : "truncations", default: 0] += 1
            s.files[Self.inode(fd)]?.sizes.append(toBytes)
            record("after resizing \(Self.short(path)) to \(toBytes)", &s)
        }
    }

    func didRename(from: String, to: String) {
        state.withLock { s in
            s.events["renames", default: 0] += 1
            let source = Database.canonicalPath(DirectorySync.directory(of: from)) + "/" + Self.short(from)
            let target = Database.canonicalPath(to)
            s.currentNames[target] = s.currentNames.removeValue(forKey: source)
            record("after renaming \(Self.short(from)) to \(Self.short(to))", &s)
        }
    }

    func didSyncDirectory(path: String) {
        state.withLock { s in
            s.events["directory syncs", default: 0] += 1
            let prefix = Database.canonicalPath(path) + "/"
            for name in Set(s.durableNames.keys).union(s.currentNames.keys) where name.hasPrefix(prefix) {
                s.durableNames[name] = s.currentNames[name]
            }
            record("after syncing the directory", &s)
        }
    }

    func closed(path: String, fd: Int32) {
        state.withLock { s in
            let inode = Self.inode(fd)
            guard var file = s.files[inode] else { return }
            file.fds.removeAll { $0 == fd }
            if file.fds.isEmpty { file.lastContents = Self.contents(fd) }
            s.files[inode] = file
        }
    }

    // MARK: helpers

    private func record(_ label: String, _ s: inout State) {
        s.eventLog.append(label)
        guard s.recording else { return }
        var inodes: [UInt64?] = [s.currentNames[watchedPath]]
        if s.durableNames[watchedPath] != s.currentNames[watchedPath] { inodes.append(s.durableNames[watchedPath]) }
        let candidates: [FileCandidate?] = inodes.map { inode in
            guard let inode, let file = s.files[inode] else { return nil }
            let current = file.fds.first.map(Self.contents) ?? file.lastContents
            return FileCandidate(durable: file.durable, current: current, sizes: Array(Set(file.sizes)).sorted())
        }
        s.points.append(CrashPoint(label: label, versionReturned: s.versionReturned, candidates: candidates))
    }

    private static func short(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    private static func inode(_ fd: Int32) -> UInt64 {
        var st = stat()
        return fstat(fd, &st) == 0 ? UInt64(st.st_ino) : 0
    }

    /// The file's contents now (the shared map's stores included).
    static func contents(_ fd: Int32) -> [UInt8] {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return [] }
        let size = Int(st.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        bytes.withUnsafeMutableBytes { buffer in
            while done < size {
                let n = pread(fd, buffer.baseAddress! + done, size - done, off_t(done))
                if n <= 0 { break }
                done += n
            }
        }
        return bytes
    }
}
