import AtollStorage
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
@testable import AtollSync

/// A TLS client that writes raw bytes after admission: for sending the relay frames that the
/// transport would never produce (a wrong checksum, a decompression bomb).
enum RawTLSClient {
    struct Outcome {
        /// Every frame the relay sent (the `accepted` frame first).
        var frames: [Frame]
        /// How reading ended, when not by a clean close.
        var error: (any Error)?

        /// The message of the relay's goodbye frame, if it sent one.
        var goodbye: String? {
            guard let frame = frames.first(where: { $0.kind == 0xF4 }), let n = frame.payload.first, frame.payload.count > 1 + Int(n) else { return nil }
            return String(decoding: frame.payload[(1 + Int(n))...], as: UTF8.self)
        }
    }

    /// Connects with mutual TLS as `node`, waits for the relay's `accepted` frame, sends `bytes`
    /// and reads until the relay closes, until `done` holds for what it sent, or until `timeout`
    /// passes (an error then).
    static func send(_ bytes: [UInt8], port: Int, certificates dir: String, node: String, timeout: Duration = .seconds(20),
                     until done: @escaping @Sendable ([Frame]) -> Bool = { _ in false }) async throws -> Outcome {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv13
        tls.certificateVerification = .noHostnameVerification
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile("\(dir)/ca.pem"))
        tls.certificateChain = try NIOSSLCertificate.fromPEMFile("\(dir)/\(node).pem").map { .certificate($0) }
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: "\(dir)/\(node)-key.pem", format: .pem))
        let context = try NIOSSLContext(configuration: tls)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
            let outcome = try await withThrowingTaskGroup(of: Outcome?.self) { group in
                group.addTask {
                    try await channel.executeThenClose { inbound, outbound in
                        let decoder = try FrameDecoder()
                        var frames: [Frame] = []
                        var iterator = inbound.makeAsyncIterator()
                        while !frames.contains(where: { $0.kind == 0xF3 }) {
                            guard let chunk = try await iterator.next() else {
                                return Outcome(frames: frames, error: AtollError(.connectionFailed, "closed before admission"))
                            }
                            frames += try decoder.decode(Array(chunk.readableBytesView))
                        }
                        try await outbound.write(ByteBuffer(bytes: bytes))
                        do {
                            while !done(frames), let chunk = try await iterator.next() {
                                frames += try decoder.decode(Array(chunk.readableBytesView))
                            }
                            return Outcome(frames: frames, error: nil)
                        } catch {
                            return Outcome(frames: frames, error: error)
                        }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            try? await group.shutdownGracefully()
            guard let outcome else { throw AtollError(.timeout, "the relay did not close the connection within \(timeout)") }
            return outcome
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// A well-formed frame of `kind` carrying `payload`, as the first frame of a connection.
    static func frame(kind: UInt8, payload: [UInt8]) throws -> [UInt8] {
        try frames([Frame(kind: kind, payload: payload)])
    }

    /// Well-formed frames, back to back in one compressed stream, as the first of a connection.
    static func frames(_ frames: [Frame]) throws -> [UInt8] {
        try FrameEncoder().encode(frames)
    }

    /// Rewrites the declared payload size of an encoded frame and fixes its checksum, so the
    /// frame passes every check but the one on what its body expands to.
    static func declaringPayload(_ bytes: [UInt8], as payloadBytes: UInt32) -> [UInt8] {
        var b = bytes
        withUnsafeBytes(of: payloadBytes.littleEndian) { for i in 0..<4 { b[10 + i] = $0[i] } }
        let count = b.count
        let crc = b.withUnsafeBytes { buffer in buffer.baseAddress.map { FrameHeader.checksum($0, frameBytes: count) } ?? 0 }
        withUnsafeBytes(of: crc.littleEndian) { for i in 0..<4 { b[5 + i] = $0[i] } }
        return b
    }
}

/// Peak resident memory of a process, from /proc (bytes).
func peakResidentBytes(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.split(separator: " ").compactMap { Int($0) }
        return digits.first.map { $0 * 1024 }
    }
    return nil
}
