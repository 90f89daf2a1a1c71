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
