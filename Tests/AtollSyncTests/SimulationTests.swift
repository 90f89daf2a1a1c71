@testable import AtollSync
import AtollTestSupport
import Foundation
import Testing

/// Seeded schedules of the simulator (Simulation/Simulator.swift). `ATOLL_SIM_SCHEDULES` sets
/// how many run (1,000 by default); `ATOLL_SIM_SEED` runs one schedule and prints its trace.
/// A failing schedule reports its seed: rerun it with `ATOLL_SIM_SEED=<seed> swift test --filter SimulationTests`.
@Suite struct SimulationTests {
    static let environment = ProcessInfo.processInfo.environment
    static let scheduleCount = Int(environment["ATOLL_SIM_SCHEDULES"] ?? "") ?? 1000
    /// Schedules against a relay on PostgreSQL (each statement a round trip to the test cluster).
    static let postgresScheduleCount = Int(environment["ATOLL_SIM_SCHEDULES_POSTGRES"] ?? "") ?? 40
    static let shards = 16

    static func runSchedule(_ seed: UInt64, store: RelayStoreKind = .file, verbose: Bool = false) throws -> String? {
        let sim = try Simulator(seed: seed, store: store)
        do {
            try sim.run()
        } catch {
            return "seed \(seed) (\(sim.options), \(store) store): \(error)\n" + sim.trace.suffix(120).joined(separator: "\n")
                + "\nlast messages:\n" + sim.messageTrace.suffix(40).joined(separator: "\n")
        }
        if verbose { print(sim.trace.joined(separator: "\n")) }
        if let problem = try sim.check() {
            return "seed \(seed) (\(sim.options), \(store) store): \(problem)\n" + sim.trace.suffix(120).joined(separator: "\n")
        }
        return nil
    }

    @Test(arguments: 0..<shards)
    func seededSchedulesConverge(shard: Int) throws {
        if let only = Self.environment["ATOLL_SIM_SEED"].flatMap(UInt64.init) {
            if shard == 0 {
                let failure = try Self.runSchedule(only, verbose: true)
                #expect(failure == nil, Comment(rawValue: failure ?? ""))
            }
            return
        }
        var seed = UInt64(shard)
        while seed < UInt64(Self.scheduleCount) {
            let failure = try Self.runSchedule(seed)
            #expect(failure == nil, Comment(rawValue: failure ?? ""))
            if failure != nil { return }
            seed += UInt64(Self.shards)
        }
    }

    /// A schedule is a function of its seed: run twice in one process, it makes the same trace
    /// and ends in the same state. (Dictionaries and sets are seeded per instance, so an order
    /// that leaked into the merge or the workload would differ between the runs.) A failure
    /// names the seed and the first line that differs. `ATOLL_SIM_REPLAYS` sets how many seeds
    /// (60 by default); with `ATOLL_SIM_REPLAY_SEED` it replays that one seed so many times. (It
    /// found the reset ids: a node took a random id for a client reset or an expiry recovery,
    /// and the id breaks ties between stamps, so seeds 26, 52 and 259 ended differently from
    /// run to run until the simulator drew those ids from its seed too.)
    @Test func eachScheduleReplaysAlike() throws {
        let count = Int(Self.environment["ATOLL_SIM_REPLAYS"] ?? "") ?? 60
        func run(_ seed: UInt64) throws -> (trace: [String], dumps: [String]) {
            let sim = try Simulator(seed: seed, store: .file)
            try sim.run()
            return (sim.trace, try sim.nodes.map { try canonicalDump($0.db) })
        }
        let only = Self.environment["ATOLL_SIM_REPLAY_SEED"].flatMap(UInt64.init)
        for seed in only.map({ Array(repeating: $0, count: count) }) ?? Array(0..<UInt64(count)) {
            let first = try run(seed), second = try run(seed)
            if first.trace != second.trace {
                let i = zip(first.trace, second.trace).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(first.trace.count, second.trace.count)
                Issue.record("seed \(seed): the traces differ at line \(i):\n\(i < first.trace.count ? first.trace[i] : "(end)")\n\(i < second.trace.count ? second.trace[i] : "(end)")")
                return
            }
            if first.dumps != second.dumps {
                let lines = (first.dumps.joined().split(separator: "\n"), second.dumps.joined().split(separator: "\n"))
                let i = zip(lines.0, lines.1).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(lines.0.count, lines.1.count)
                Issue.record("seed \(seed): the same trace ended in different states, first at\n\(i < lines.0.count ? lines.0[i] : "(end)")\n\(i < lines.1.count ? lines.1[i] : "(end)")")
            }
        }
    }

    /// The same schedules with the relay's state in PostgreSQL (a relay crash reopens the store on
    /// the same database). `ATOLL_SIM_SCHEDULES_POSTGRES` sets how many (40 by default);
    /// `ATOLL_SIM_SEED` replays one here too.
    @Test(arguments: 0..<4)
    func seededSchedulesConvergeOnPostgres(shard: Int) async throws {
        try await offPool {
            if let only = Self.environment["ATOLL_SIM_SEED"].flatMap(UInt64.init) {
                if shard == 0 {
                    let failure = try Self.runSchedule(only, store: .postgres, verbose: true)
                    #expect(failure == nil, Comment(rawValue: failure ?? ""))
                }
                return
            }
            var seed = UInt64(shard)
            while seed < UInt64(Self.postgresScheduleCount) {
                let failure = try Self.runSchedule(seed, store: .postgres)
                #expect(failure == nil, Comment(rawValue: failure ?? ""))
                if failure != nil { return }
                seed += 4
            }
        }
    }
}
