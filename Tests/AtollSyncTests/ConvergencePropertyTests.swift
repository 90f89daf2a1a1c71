import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// Random workloads on several nodes whose changesets are delivered in random orders (any order
/// that respects causality: a changeset arrives after the ones its origin had applied when it
/// made it), some twice. All nodes must end with identical state; applying in a different order
/// must give identical state too (commutativity); and re-applying changes nothing (idempotence).
@Suite struct ConvergencePropertyTests {
    struct Published {
        let changeset: Changeset
        let deps: VersionVector
    }

    final class Harness {
        var nodes: [TestNode] = []
        var log: [Published] = []
        var published: [UInt64]
        var rng: SeededGenerator
        let clock: ManualClock
        var history: [String] = []

        init(seed: UInt64, nodes n: Int) throws {
            rng = SeededGenerator(seed: seed)
            clock = ManualClock()
            for _ in 0..<n {
                // Each node with its own clock offset (skew), sometimes far ahead.
                let skew = ManualClock(clock.now + UInt64.random(in: 0...120_000, using: &rng))
                nodes.append(try TestNode(clock: skew))
            }
            published = Array(repeating: 0, count: n)
        }

        func publish(_ i: Int) throws {
            let node = nodes[i]
            let deps = node.replica.versionVector
            for cs in try node.outgoing(after: published[i]) {
                log.append(Published(changeset: cs, deps: deps))
                published[i] = cs.seq
            }
        }

        func deliverable(to node: TestNode) -> [Changeset] {
            let vv = node.replica.versionVector
            return log.filter { p in
                p.changeset.seq == vv[p.changeset.origin] + 1 && p.changeset.origin != node.id
                    && p.deps.entries.allSatisfy { $0.key == p.changeset.origin || vv[$0.key] >= $0.value }
            }.map(\.changeset)
        }

        func step() throws {
            let i = Int.random(in: 0..<nodes.count, using: &rng)
            let node = nodes[i]
            for n in nodes { n.clock.advance(UInt64.random(in: 0...3, using: &rng)) }
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<40:
                history.append("n\(i): " + (try Workload.randomTransaction(node.db, &rng)))
            case 40..<45:
                try node.replica.extractLocalChanges()
                do { try node.replica.checkInvariants() } catch {
                    Issue.record("after extracting on n\(i): \(error)\n\(history.joined(separator: "\n"))")
                    throw error
                }
            case 40..<60:
                try publish(i)
            default:
                try publish(i)
                var batch: [Changeset] = []
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    guard let next = rng.pick(deliverable(to: node)) else { break }
                    batch.append(next)
                    // Deliver within a batch too: later picks see the earlier ones as applied.
                    try node.replica.apply([next])
                    do { try node.replica.checkInvariants() } catch {
                        Issue.record("after applying \(next.origin.description.prefix(4)):\(next.seq) on n\(i): \(error)\n\(history.joined(separator: "\n"))")
                        throw error
                    }
                }
                if rng.chance(20), let dup = rng.pick(log.map(\.changeset)), dup.seq <= node.replica.versionVector[dup.origin] {
                    let report = try node.replica.apply([dup])
                    #expect(report.applied == 0)
                }
                history.append("n\(i) applied \(batch.map { "\($0.origin.description.prefix(4)):\($0.seq)" })")
            }
        }

        func quiesce() throws {
            for i in nodes.indices { try publish(i) }
            var progress = true
            while progress {
                progress = false
                for node in nodes {
                    let ready = deliverable(to: node)
                    if let next = ready.first {
                        try node.replica.apply([next])
                        progress = true
                    }
                }
            }
        }
    }

    static let seedCount = Int(ProcessInfo.processInfo.environment["ATOLL_PROPERTY_SEEDS"] ?? "") ?? 40

    @Test(arguments: 0..<seedCount)
    func randomWorkloadsConvergeWhateverTheDeliveryOrder(seed: Int) throws {
        let h = try Harness(seed: UInt64(seed) &* 7919 &+ 1, nodes: 3)
        for _ in 0..<60 { try h.step() }
        try h.quiesce()
        let dumps = try h.nodes.map { try $0.dump() }
        #expect(dumps[0] == dumps[1] && dumps[1] == dumps[2], "seed \(seed): nodes diverged\n\(dumps.joined(separator: "\n---\n"))\n\(h.history.joined(separator: "\n"))")

        // A fresh node receiving everything in a different (shuffled causal) order agrees.
        let fresh = try TestNode()
        var rng = SeededGenerator(seed: UInt64(seed) &+ 99)
        var pending = h.log
        while !pending.isEmpty {
            let vv = fresh.replica.versionVector
            let ready = pending.indices.filter { i in
                let p = pending[i]
                return p.changeset.seq == vv[p.changeset.origin] + 1 && p.deps.entries.allSatisfy { $0.key == p.changeset.origin || vv[$0.key] >= $0.value }
            }
            guard let pick = rng.pick(ready) else { Issue.record("seed \(seed): undeliverable changesets"); break }
            try fresh.replica.apply([pending[pick].changeset])
            pending.remove(at: pick)
        }
        #expect(try fresh.dump() == dumps[0], "seed \(seed): a different delivery order gave a different state")
        // Everything again: nothing changes.
        let report = try fresh.replica.apply(h.log.map(\.changeset))
        #expect(report.applied == 0)
        #expect(try fresh.dump() == dumps[0])
        for n in h.nodes { _ = try n.db.verify() }
    }
}
