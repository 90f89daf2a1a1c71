/// Polls `condition` every 10 ms until it holds or `timeout` (ten times longer under Thread
/// Sanitizer) passes; true when it held.
public func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + ThreadSanitizer.scaled(timeout)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
