import Foundation

/// A fresh directory under the system temp dir, removed with everything in it when the last
/// reference goes (also when a test fails).
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "atoll-test") {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` inside the directory and returns its path.
    public func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }
}
