import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Read-only media for tests: a fresh writable directory and a read-only bind mount of it, so a
/// test writes a database through `writable` and opens it through `readOnly`, where every write
/// fails with EROFS whoever the user is (tests run as root, which permission bits do not stop).
/// Needs the privilege to mount (root with CAP_SYS_ADMIN); `make()` returns nil without it.
/// The mount is detached when the last reference goes.
public final class ReadOnlyMount: Sendable {
    /// The writable directory.
    public let writable: TemporaryDirectory
    /// The same directory, mounted read-only.
    public let readOnly: String
    private let mountPoint: TemporaryDirectory

    private init(writable: TemporaryDirectory, mountPoint: TemporaryDirectory) {
        self.writable = writable
        self.mountPoint = mountPoint
        readOnly = mountPoint.path
    }

    /// Whether this process may mount (tried once, with a mount that is detached at once).
    public static let isSupported: Bool = make() != nil

    /// A new read-only mount, or nil where mounting is not allowed.
    public static func make() -> ReadOnlyMount? {
        let source = TemporaryDirectory(prefix: "atoll-media")
        let target = TemporaryDirectory(prefix: "atoll-media-ro")
        guard run("/usr/bin/mount", ["--bind", source.path, target.path]) else { return nil }
        guard run("/usr/bin/mount", ["-o", "remount,bind,ro", target.path]) else {
            _ = umount2(target.path, Int32(MNT_DETACH))
            return nil
        }
        return ReadOnlyMount(writable: source, mountPoint: target)
    }

    deinit { _ = umount2(readOnly, Int32(MNT_DETACH)) }

    /// The path of `name` in the read-only view.
    public func file(_ name: String) -> String { readOnly + "/" + name }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        do {
            return try SpawnedProcess.run(tool, arguments).status == 0
        } catch {
            FileHandle.standardError.write(Data("cannot run \(tool): \(error)\n".utf8))
            return false
        }
    }
}
