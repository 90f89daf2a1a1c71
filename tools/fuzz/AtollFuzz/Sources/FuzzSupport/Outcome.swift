public import AtollStorage

/// The contract every fuzz target checks: a run on any input ends with a value or an
/// `AtollError` of a kind the boundary may report. Anything else (another error type, a kind
/// that misdescribes the problem) stops the fuzzer like a crash, so libFuzzer saves the input.
public struct Outcome: Sendable {
    /// The error kinds this boundary may report for bad input.
    public let allowedKinds: Set<AtollError.Kind>
    /// The target's name, for the messages of a violation.
    public let target: String

    public init(target: String, allowedKinds: Set<AtollError.Kind>) {
        self.target = target
        self.allowedKinds = allowedKinds
    }

    /// Runs `body`; returns its value, nil when it threw an allowed `AtollError`, and traps on
    /// any other error.
    @discardableResult
    public func check<T>(_ step: @autoclosure () -> String, _ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch let error as AtollError {
            if !allowedKinds.contains(error.kind) {
                violation("\(step()): an AtollError of kind .\(error.kind.rawValue), which this boundary must not report: \(error.message)")
            }
            return nil
        } catch {
            violation("\(step()): threw \(type(of: error)), not an AtollError: \(error)")
        }
    }

    /// Stops the run so libFuzzer records the input as a crash.
    public func violation(_ message: String) -> Never {
        fatalError("\(target): \(message)")
    }

    /// `require` is the fuzz targets' assertion: it holds in release builds too.
    public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { violation(message()) }
    }
}
