import AtollStorage
import Synchronization

/// Open admitted connections per peer identity (certificate common name or token name), so that
/// one identity cannot take every slot of a server: `connectionsPerIdentityMax`.
///
/// Invariant: a name is in the table exactly while it has at least one counted connection.
final class IdentityCounter: Sendable {
    let max: Int
    private let open = AtollLock<[String: Int]>([:])

    init(max: Int) {
        self.max = max
    }

    /// Counts one more connection of `name`, if it has fewer than `max` open.
    func admit(_ name: String) -> Bool {
        open.withLock { open in
            let current = open[name, default: 0]
            guard current < max else { return false }
            open[name] = current + 1
            return true
        }
    }

    func release(_ name: String) {
        open.withLock { open in
            guard let current = open[name] else { return }
            open[name] = current > 1 ? current - 1 : nil
        }
    }

    /// Connections of `name` open now.
    func count(_ name: String) -> Int { open.withLock { $0[name, default: 0] } }
}
