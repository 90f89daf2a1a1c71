import AtollStorage

extension AtollError {
    /// An `.invalidQuery` error whose message ends with where in the query string it happened.
    ///
    /// Offsets count UTF-8 bytes from the start of the query string; for ASCII queries that is
    /// the character position (0-based).
    static func invalidQuery(_ problem: String, at offset: Int) -> AtollError {
        AtollError(.invalidQuery, "\(problem) at offset \(offset)")
    }
}
