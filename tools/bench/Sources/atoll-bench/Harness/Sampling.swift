/// How many times a workload runs: `warmups` discarded runs, then `runs` measured ones whose
/// median is reported.
struct SamplingPlan {
    var warmups: Int
    var runs: Int

    /// Cheap workloads (reads, single queries): enough runs for a stable median.
    static let light = SamplingPlan(warmups: 1, runs: 5)
    /// Workloads that rebuild a file or take seconds per run.
    static let heavy = SamplingPlan(warmups: 1, runs: 3)
}

/// One run of a workload: does its own set-up, then times only the work and returns the elapsed
/// nanoseconds (set-up and checks stay outside the interval).
typealias TimedRun = (_ run: Int) throws -> UInt64

enum Sampler {
    /// Median nanoseconds of `plan.runs` runs of one engine after `plan.warmups` warm-up runs.
    static func measure(_ plan: SamplingPlan, _ body: TimedRun) throws -> Double {
        var samples: [UInt64] = []
        for run in 0..<(plan.warmups + plan.runs) {
            let ns = try body(run)
            if run >= plan.warmups { samples.append(ns) }
        }
        return median(samples)
    }

    /// Runs two engines run by run, alternating which goes first, so that machine noise (other
    /// processes, page-cache writeback, frequency changes) hits both alike. Returns the median
    /// nanoseconds of each.
    static func interleave(_ plan: SamplingPlan, _ first: TimedRun, _ second: TimedRun) throws -> (first: Double, second: Double) {
        var a: [UInt64] = [], b: [UInt64] = []
        for run in 0..<(plan.warmups + plan.runs) {
            let x: UInt64, y: UInt64
            if run.isMultiple(of: 2) {
                x = try first(run); y = try second(run)
            } else {
                y = try second(run); x = try first(run)
            }
            if run >= plan.warmups { a.append(x); b.append(y) }
        }
        return (median(a), median(b))
    }

    static func median(_ samples: [UInt64]) -> Double {
        precondition(!samples.isEmpty, "a median needs at least one sample")
        let s = samples.sorted()
        let mid = s.count / 2
        return s.count.isMultiple(of: 2) ? (Double(s[mid - 1]) + Double(s[mid])) / 2 : Double(s[mid])
    }

    static func median(_ samples: [Double]) -> Double {
        precondition(!samples.isEmpty, "a median needs at least one sample")
        let s = samples.sorted()
        let mid = s.count / 2
        return s.count.isMultiple(of: 2) ? (s[mid - 1] + s[mid]) / 2 : s[mid]
    }

    /// The `p`-th percentile (0...100) by nearest rank.
    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        precondition(!samples.isEmpty, "a percentile needs at least one sample")
        let s = samples.sorted()
        let rank = Int((p / 100 * Double(s.count)).rounded(.up)) - 1
        return s[min(max(rank, 0), s.count - 1)]
    }
}

/// Conversions from a median duration to the reported figure.
enum Rate {
    /// Items per second for `count` items done in `nanoseconds`.
    static func perSecond(_ count: Int, _ nanoseconds: Double) -> Double { Double(count) / (nanoseconds / 1e9) }
    static func milliseconds(_ nanoseconds: Double) -> Double { nanoseconds / 1e6 }
    static func microseconds(_ nanoseconds: Double) -> Double { nanoseconds / 1e3 }
}
