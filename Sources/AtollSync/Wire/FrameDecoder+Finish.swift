import AtollStorage

extension FrameDecoder {
    /// Call when the byte stream ends (the peer closed): throws if it ended inside a frame.
    public func finish() throws {
        if bufferedBytes > 0 {
            throw AtollError(.protocolViolation, "the connection ended in the middle of a frame (\(bufferedBytes) bytes of an incomplete frame received)")
        }
    }
}
