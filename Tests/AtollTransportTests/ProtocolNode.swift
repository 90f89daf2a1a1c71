import AtollStorage
import Foundation
import NIOCore
import Synchronization
@testable import AtollSync

/// A lightweight sync node for load and hostile-peer tests: it speaks the real protocol over a
/// real `FrameClient` (TLS, frames, zstd), with no Atoll file behind it. It says hello, uploads
/// changesets of its own (one `set` of `Item(pk: name).n` each, stamped with a real clock), keeps
/// what the relay acknowledged, and records every changeset the relay forwards, refusing gaps:
/// each origin's changesets must arrive in sequence, so a lost one is detected, not skipped.
final class ProtocolNode: Sendable {
    let name: String
    let nodeID: NodeID
    let realm: String
    let client: FrameClient
    let fingerprint: [UInt8]
    private let state = AtollLock(State())
    /// Wakes the writer when an acknowledgement or a welcome arrives.
    private let progress: AsyncStream<Void>
    private let progressContinuation: AsyncStream<Void>.Continuation

    struct State {
        var welcomed = false
        /// The highest sequence number the relay acknowledged as stored.
        var acknowledged: UInt64 = 0
        /// Per other origin: the highest sequence number received (contiguous from 1).
        var received: [NodeID: UInt64] = [:]
        var cursor: UInt64 = 0
        var head: UInt64 = 0
        /// The first problem seen: a gap, a refusal, a broken connection.
        var failure: String?
    }

    static let schemaFingerprint: [UInt8] = Array(0..<16)

    init(name: String, realm: String, client: FrameClient, nodeID: NodeID = .random(), fingerprint: [UInt8] = ProtocolNode.schemaFingerprint) {
        self.name = name
        self.realm = realm
        self.client = client
        self.nodeID = nodeID
        self.fingerprint = fingerprint
        (progress, progressContinuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    var snapshot: State { state.withLock { $0 } }

    /// Connects once and runs the session: uploads `writes` changesets, one every `interval`
    /// (each waiting for the previous one's acknowledgement), and keeps receiving until `stop`
    /// says so. Returns normally when stopped; records a failure otherwise.
    func run(writes: Int, interval: Duration, stop: @escaping @Sendable () -> Bool) async {
        do {
            try await client.connect { connection in
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        try await self.read(connection)
                        return false
                    }
                    group.addTask {
                        try await connection.send(self.helloFrame())
                        try await self.waitFor { $0.welcomed }
                        for seq in 1...max(1, writes) where writes > 0 {
                            try await connection.send(self.uploadFrame(seq: UInt64(seq)))
                            try await self.waitFor { $0.acknowledged >= UInt64(seq) }
                            try await Task.sleep(for: interval)
                        }
                        while !stop() { try await Task.sleep(for: .milliseconds(50)) }
                        return true
                    }
                    // The writer ends first (after `stop`); the reader is cancelled then.
                    let stopped = try await group.next() ?? false
                    group.cancelAll()
                    if !stopped { throw AtollError(.closed, "the relay closed the connection") }
                }
            }
        } catch {
            if !stop() { fail("\(name): \(error)") }
        }
        progressContinuation.finish()
    }

    func helloFrame() -> Frame {
        SyncMessage.hello(SyncMessage.Hello(nodeID: nodeID, realmID: realm, schemaFingerprint: fingerprint,
                                            cursor: DownloadCursor(relayID: .zero, seq: 0), versionVector: VersionVector())).frame
    }

    func uploadFrame(seq: UInt64) -> Frame {
        let content = ChangesetContent(classes: ["Item"], properties: ["n"], instructions: [
            .set(ObjectAddress(classIndex: 0, primaryKey: .string(name)), property: 0, value: .value(.int(Int64(seq)))),
        ])
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        let changeset = Changeset(origin: nodeID, seq: seq, hlc: HybridLogicalClock.reading(physical: milliseconds) | (seq & 0xFFFF),
                                  body: content.encode(origin: nodeID))
        return SyncMessage.upload([changeset]).frame
    }

    private func read(_ connection: FrameConnection) async throws {
        for try await frame in connection.inbound {
            let message = try SyncMessage(frame: frame)
            switch message {
            case .welcome(let welcome):
                update {
                    $0.welcomed = true
                    $0.head = welcome.head
                    $0.cursor = welcome.start
                }
            case .uploadAck(let through, _):
                update { $0.acknowledged = max($0.acknowledged, through) }
            case .download(let from, let to, let head, let changesets):
                let reply: Frame? = try state.withLock { s in
                    s.head = max(s.head, head)
                    guard from == s.cursor else {
                        // A repeat or a gap in the log positions (not expected on one connection).
                        return to <= s.cursor ? SyncMessage.downloadAck(cursor: s.cursor, resend: false).frame
                                              : SyncMessage.downloadAck(cursor: s.cursor, resend: true).frame
                    }
                    for changeset in changesets {
                        guard changeset.origin != nodeID else { throw AtollError(.protocolViolation, "\(name) was sent its own changeset") }
                        let previous = s.received[changeset.origin, default: 0]
                        if changeset.seq <= previous { continue }
                        guard changeset.seq == previous + 1 else {
                            throw AtollError(.protocolViolation, "\(name) received changeset \(changeset.seq) of \(changeset.origin) after \(previous): one is missing")
                        }
                        s.received[changeset.origin] = changeset.seq
                    }
                    s.cursor = to
                    return SyncMessage.downloadAck(cursor: to, resend: false).frame
                }
                if let reply { try await connection.send(reply) }
            case .markReply(_, let head):
                update { $0.head = max($0.head, head) }
            case .error(let code, let text):
                if code.isFatal { throw AtollError(code.errorKind, "\(name) was refused: \(text)") }
            default:
                throw AtollError(.protocolViolation, "\(name) got an unexpected \(message.kind)")
            }
        }
    }

    private func update(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
        progressContinuation.yield()
    }

    private func fail(_ text: String) {
        state.withLock { s in if s.failure == nil { s.failure = text } }
        progressContinuation.yield()
    }

    /// Waits until `condition` holds (woken by each acknowledgement or welcome).
    private func waitFor(_ condition: (State) -> Bool) async throws {
        var iterator = progress.makeAsyncIterator()
        while !condition(snapshot) {
            guard await iterator.next() != nil else { throw AtollError(.closed, "\(name): the session ended") }
            try Task.checkCancellation()
        }
    }
}
