import AtollTestSupport
import Foundation

/// Prometheus text format, read back: the value of one sample.
struct PrometheusSamples {
    let text: String

    /// The value of `name` whose labels include every pair of `labels` (nil when absent).
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            let metric = series.prefix { $0 != "{" }
            guard metric == name else { continue }
            let labelText = series.dropFirst(metric.count)
            guard labels.allSatisfy({ labelText.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            return Double(line[line.index(after: space)...])
        }
        return nil
    }

    /// The sum of `name` over all its label sets (0 when absent).
    func total(_ name: String) -> Double {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") && ($0.hasPrefix(name + " ") || $0.hasPrefix(name + "{")) }
            .compactMap { line in line.lastIndex(of: " ").flatMap { Double(line[line.index(after: $0)...]) } }
            .reduce(0, +)
    }
}
