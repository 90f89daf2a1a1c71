@testable import AtollSync
import Testing

@Suite struct HybridLogicalClockTests {
    @Test func readingsFollowPhysicalTimeAndNeverRepeat() {
        var c = HybridLogicalClock()
        let a = c.tick(physicalMilliseconds: 1000)
        let b = c.tick(physicalMilliseconds: 1000)
        let d = c.tick(physicalMilliseconds: 2000)
        #expect(HybridLogicalClock.physicalMilliseconds(of: a) == 1000)
        #expect(b == a + 1)
        #expect(HybridLogicalClock.physicalMilliseconds(of: d) == 2000)
        #expect(d & 0xFFFF == 0)
    }

    @Test func aClockSteppedBackwardsStillMovesForward() {
        var c = HybridLogicalClock()
        let a = c.tick(physicalMilliseconds: 5000)
        let b = c.tick(physicalMilliseconds: 1000)
        #expect(b > a)
        // Persisted and restored (a restart): still forward.
        var restarted = HybridLogicalClock(last: b)
        let afterRestart = restarted.tick(physicalMilliseconds: 10)
        #expect(afterRestart > b)
    }

    @Test func observingARemoteReadingOrdersLaterEventsAfterIt() {
        var c = HybridLogicalClock()
        _ = c.tick(physicalMilliseconds: 1000)
        let remote = HybridLogicalClock.reading(physical: 30_000) + 7
        let believed = c.observe(remote, physicalMilliseconds: 1000)
        #expect(believed)
        let next = c.tick(physicalMilliseconds: 1000)
        #expect(next > remote)
    }

    @Test func aReadingTooFarInTheFutureIsCappedAndFlagged() {
        var c = HybridLogicalClock()
        let now: UInt64 = 1_700_000_000_000
        let farAhead = HybridLogicalClock.reading(physical: now + 3_600_000)
        let believedFar = c.observe(farAhead, physicalMilliseconds: now)
        #expect(!believedFar)
        #expect(HybridLogicalClock.physicalMilliseconds(of: c.last) <= now + HybridLogicalClock.maxForwardDriftMillisecondsDefault)
        let local = c.tick(physicalMilliseconds: now)
        #expect(local < farAhead)
        // Within the bound: believed.
        let ahead = HybridLogicalClock.reading(physical: now + 30_000)
        var fresh = HybridLogicalClock()
        let believedAhead = fresh.observe(ahead, physicalMilliseconds: now, maxForwardDriftMilliseconds: 60_000)
        #expect(believedAhead)
        #expect(fresh.last == ahead)
        // A configurable bound.
        var strict = HybridLogicalClock()
        let believedStrict = strict.observe(ahead, physicalMilliseconds: now, maxForwardDriftMilliseconds: 1000)
        #expect(!believedStrict)
    }

    @Test func stampsOrderByClockThenNodeId() {
        let low = NodeID(high: 0, low: 1), high = NodeID(high: 1, low: 0)
        #expect(Stamp(hlc: 5, node: high) < Stamp(hlc: 6, node: low))
        #expect(Stamp(hlc: 5, node: low) < Stamp(hlc: 5, node: high))
        #expect(NodeID(bytes: high.bytes) == high)
        #expect(NodeID(hex: high.description) == high)
    }
}
