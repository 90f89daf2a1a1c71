import AtollStorage

/// What a node driver or the relay queues for one connection.
enum OutgoingFrame: Sendable {
    case frame(Frame)
    /// Close after what came before; with an error, the peer gets it in a goodbye first.
    case close(AtollError?)
}

extension FrameConnection {
    /// Pumps frames both ways until either direction ends: `outbound` to the peer (in order,
    /// ending on `.close` or when the stream finishes), and every inbound frame to `received`.
    /// Returns the error that ended the connection, nil for a clean end.
    func pump(_ outbound: AsyncStream<OutgoingFrame>, received: @escaping @Sendable (Frame) async -> Void) async -> AtollError? {
        await withTaskGroup(of: AtollError?.self) { group -> AtollError? in
            group.addTask {
                do {
                    for await item in outbound {
                        switch item {
                        case .frame(let frame):
                            try await self.send(frame)
                        case .close(let error):
                            await self.close(error: error)
                            return nil
                        }
                    }
                    return nil
                } catch {
                    return error as? AtollError ?? AtollError(.connectionFailed, "\(error)")
                }
            }
            group.addTask {
                do {
                    for try await frame in self.inbound { await received(frame) }
                    return nil
                } catch {
                    return error as? AtollError ?? AtollError(.connectionFailed, "\(error)")
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
