import AtollStorage
package import AtollSync
package import Logging
import PostgresNIO

// The relay's tables in PostgreSQL (schema version 8; version 2 added schema_history, version 3
// last_digest and the append that records it, version 4 stability_point, version 5
// deletion_point and applied_bound, version 6 atoll_relay_base_deleted, version 7 index_from,
// version 8 the index of embedded objects in atoll_relay_base_parts, built again from index_from). Every relay sharing the database reads and
// writes them; `atoll-relay migrate` (and `serve`, first) creates or upgrades them.
//
//   atoll_relay_meta        key text -> value text: 'schema_version', 'relay_id' (32 hex digits:
//                           the log's identity, the same at every relay of the database)
//   atoll_relay_realms      id (the realm number used in keys), name, fingerprint, head,
//                           operations through head, schema_history (SyncSchemaDescription's
//                           encoding; NULL until a node describes its schema), stability_point,
//                           deletion_point (u64 bits in a bigint) and applied_bound (a position):
//                           the highest a relay sent (docs/SYNC.md, "The stability point"),
//                           index_from (NULL: atoll_relay_base_deleted and the embedded parts
//                           index all of the realm's compacted history; else the object key
//                           their building for a history folded before them has passed, empty
//                           at first; nothing is collected until it is NULL). The row is
//                           the realm's append lock.
//   atoll_relay_trims       per realm: trimmed_through, operations_at_trim, and
//                           snapshot_lease_until (ms since 1970; no relay trims the realm before
//                           it: one is streaming its compacted history). The row is the trim lock,
//                           apart from the append lock so that trimming never holds up appends.
//   atoll_relay_log         (realm, position) -> arrival, operations through this entry, origin,
//                           origin_seq, hlc (u64 bits in a bigint), flags, body (bytea);
//                           unique (realm, origin, origin_seq): a changeset is stored once.
//   atoll_relay_origins     (realm, origin) -> stored, trimmed sequence numbers, last_digest
//                           (the hlc of changeset `stored`; 0 when stored before version 3)
//   atoll_relay_peers       (realm, node) -> acknowledged position, first and last seen (ms)
//   atoll_relay_base_objects, atoll_relay_base_parts
//   atoll_relay_base_deleted
//                           key bytea -> value bytea: the compacted history, the same keys and
//                           values as the relay file's trees (RelayBase), realm number first;
//                           the last is the index of tombstones and removed list elements by
//                           stamp that collecting reads (RelayBase.collectDeleted).
//
// Ordering: atoll_relay_append (below) locks the realm's row (SELECT ... FOR UPDATE), numbers the
// new entries from its head, and commits; the next append of the realm waits for that lock, and
// PostgreSQL makes a transaction visible before it releases its locks, so positions are gap free
// and become visible in order: a reader that sees position n sees every position before it, and
// `position > cursor` never skips a row. Different realms lock different rows and commit in
// parallel. docs/RELAY.md has the whole argument.

enum PostgresRelaySchema {
    /// The schema this relay writes and reads.
    static let version = 8
    /// How long one statement of a migration may take, waiting for the locks it needs included
    /// (another relay's migration, or tables that relays of an older version are using).
    static let migrationMilliseconds: Int64 = 300_000

    /// Serializes concurrent migrations (`pg_advisory_xact_lock`): 'atoll' in ASCII.
    static let migrationLock: Int64 = 0x61_74_6F_6C_6C

    static let versionOne: [String] = [
        """
        CREATE TABLE atoll_relay_realms (
            id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            name text NOT NULL UNIQUE,
            fingerprint bytea NOT NULL,
            head bigint NOT NULL DEFAULT 0,
            operations bigint NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE atoll_relay_trims (
            realm integer PRIMARY KEY REFERENCES atoll_relay_realms (id),
            trimmed_through bigint NOT NULL DEFAULT 0,
            operations_at_trim bigint NOT NULL DEFAULT 0,
            snapshot_lease_until bigint NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE atoll_relay_log (
            realm integer NOT NULL,
            position bigint NOT NULL,
            arrival bigint NOT NULL,
            operations bigint NOT NULL,
            origin bytea NOT NULL,
            origin_seq bigint NOT NULL,
            hlc bigint NOT NULL,
            flags smallint NOT NULL,
            body bytea NOT NULL,
            PRIMARY KEY (realm, position),
            UNIQUE (realm, origin, origin_seq))
        """,
        """
        CREATE TABLE atoll_relay_origins (
            realm integer NOT NULL,
            origin bytea NOT NULL,
            stored bigint NOT NULL,
            trimmed bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (realm, origin))
        """,
        """
        CREATE TABLE atoll_relay_peers (
            realm integer NOT NULL,
            node bytea NOT NULL,
            acknowledged bigint NOT NULL,
            first_seen bigint NOT NULL,
            last_seen bigint NOT NULL,
            PRIMARY KEY (realm, node))
        """,
        "CREATE TABLE atoll_relay_base_objects (key bytea PRIMARY KEY, value bytea NOT NULL)",
        "CREATE TABLE atoll_relay_base_parts (key bytea PRIMARY KEY, value bytea NOT NULL)",
    ]

    /// From version 1: realms keep their schema history.
    static let versionTwo: [String] = [
        "ALTER TABLE atoll_relay_realms ADD COLUMN schema_history bytea",
    ]

    /// From version 2: each origin keeps `Changeset.digest` of its newest stored changeset (sent
    /// in `welcome`, protocol 4), which the append (now taking the digests) records. A new
    /// database gets its append function here too (versions 1 and 2 had one without digests).
    static let versionThree: [String] = [
        "ALTER TABLE atoll_relay_origins ADD COLUMN IF NOT EXISTS last_digest bigint NOT NULL DEFAULT 0",
        "DROP FUNCTION IF EXISTS atoll_relay_append(integer, bytea, bigint[], bigint[], smallint[], bigint[], bytea[], bigint)",
        // One origin's changesets, in sequence order, appended in one transaction under the
        // realm's row lock: those already stored are skipped (a retry, here or at another relay),
        // one that skips a number ends the append (gap). Returns the head and operations before,
        // the origin's stored sequence number before and after, and whether a gap was met.
        """
        CREATE OR REPLACE FUNCTION atoll_relay_append(p_realm integer, p_origin bytea, p_seqs bigint[], p_hlcs bigint[], p_flags smallint[],
                                           p_operations bigint[], p_bodies bytea[], p_arrival bigint, p_digests bigint[])
        RETURNS TABLE (head_before bigint, operations_before bigint, stored_before bigint, stored_after bigint, gap boolean)
        LANGUAGE plpgsql AS $$
        DECLARE
            v_head bigint;
            v_operations bigint;
            v_stored bigint;
            v_next bigint;
            v_first integer;
            v_count integer := 0;
            v_gap boolean := false;
        BEGIN
            SELECT r.head, r.operations INTO v_head, v_operations FROM atoll_relay_realms r WHERE r.id = p_realm FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'atoll relay: realm % does not exist', p_realm;
            END IF;
            SELECT o.stored INTO v_stored FROM atoll_relay_origins o WHERE o.realm = p_realm AND o.origin = p_origin;
            v_stored := coalesce(v_stored, 0);
            v_next := v_stored;
            FOR i IN 1 .. coalesce(array_length(p_seqs, 1), 0) LOOP
                CONTINUE WHEN p_seqs[i] <= v_next;
                IF p_seqs[i] <> v_next + 1 THEN
                    v_gap := true;
                    EXIT;
                END IF;
                IF v_first IS NULL THEN
                    v_first := i;
                END IF;
                v_next := p_seqs[i];
                v_count := v_count + 1;
            END LOOP;
            IF v_count > 0 THEN
                INSERT INTO atoll_relay_log (realm, position, arrival, operations, origin, origin_seq, hlc, flags, body)
                SELECT p_realm, v_head + t.k, p_arrival, v_operations + sum(t.ops) OVER (ORDER BY t.k), p_origin, t.seq, t.hlc, t.flags, t.body
                FROM unnest(p_seqs[v_first : v_first + v_count - 1], p_hlcs[v_first : v_first + v_count - 1],
                            p_flags[v_first : v_first + v_count - 1], p_operations[v_first : v_first + v_count - 1],
                            p_bodies[v_first : v_first + v_count - 1]) WITH ORDINALITY AS t(seq, hlc, flags, ops, body, k);
                UPDATE atoll_relay_realms SET head = v_head + v_count,
                    operations = v_operations + (SELECT sum(x) FROM unnest(p_operations[v_first : v_first + v_count - 1]) x)
                WHERE id = p_realm;
                INSERT INTO atoll_relay_origins (realm, origin, stored, last_digest)
                VALUES (p_realm, p_origin, v_next, p_digests[v_first + v_count - 1])
                ON CONFLICT (realm, origin) DO UPDATE SET stored = EXCLUDED.stored, last_digest = EXCLUDED.last_digest;
            END IF;
            RETURN QUERY SELECT v_head, v_operations, v_stored, v_next, v_gap;
        END;
        $$
        """,
    ]

    /// From version 3: the realm's stability point is kept (a relay that restarts, or another
    /// relay of the database, still refuses changesets stamped below it).
    static let versionFour: [String] = [
        "ALTER TABLE atoll_relay_realms ADD COLUMN IF NOT EXISTS stability_point bigint NOT NULL DEFAULT 0",
    ]

    /// From version 4: the realm's deletion point and applied bound are kept with its stability
    /// point (a relay that restarts, or another relay of the database, still refuses changesets
    /// made before merging the applied bound).
    static let versionFive: [String] = [
        "ALTER TABLE atoll_relay_realms ADD COLUMN IF NOT EXISTS deletion_point bigint NOT NULL DEFAULT 0",
        "ALTER TABLE atoll_relay_realms ADD COLUMN IF NOT EXISTS applied_bound bigint NOT NULL DEFAULT 0",
    ]

    /// From version 5: the compacted history's index of tombstones and removed list elements by
    /// stamp, for collecting them (deletes folded before it are not in it, and stay).
    static let versionSix: [String] = [
        "CREATE TABLE IF NOT EXISTS atoll_relay_base_deleted (key bytea PRIMARY KEY, value bytea NOT NULL)",
    ]

    /// From version 6: how far the index of tombstones was built for each realm's compacted
    /// history (a history folded before version 6, or by a relay of version 5 beside an
    /// upgraded one, is not in it; every existing realm is indexed again from the start).
    static let versionSeven: [String] = [
        "ALTER TABLE atoll_relay_realms ADD COLUMN IF NOT EXISTS index_from bytea",
        "UPDATE atoll_relay_realms SET index_from = ''::bytea",
    ]

    /// From version 7: the compacted history also indexes embedded objects under their parents
    /// (`RelayBase`, part kind 6), which collecting a parent needs; every existing realm is
    /// indexed again from the start, and nothing of it is collected until that is done.
    static let versionEight: [String] = [
        "UPDATE atoll_relay_realms SET index_from = ''::bytea",
    ]

    /// Creates the relay's tables, or checks that they are of a version this relay knows.
    /// Concurrent calls (relays starting together) are serialized by an advisory lock. Returns
    /// the relay id of the database (made once, from `newRelayID` if given).
    ///
    /// - Throws: `.fileFormatTooNew` when the database holds a newer schema than this relay
    ///   knows; `.connectionFailed` when PostgreSQL cannot be reached.
    @discardableResult
    static func migrate(_ session: PostgresSession, newRelayID: NodeID? = nil) throws -> (relayID: NodeID, created: Bool) {
        // A relay starting while another migrates waits for it, and a migration of a large
        // database runs to its end, up to `migrationMilliseconds` a statement, rather than failing
        // after the session's short timeouts.
        try session.transaction { try session.allowingLongStatements(milliseconds: migrationMilliseconds) {
            try session.query("SELECT pg_advisory_xact_lock(\(migrationLock))")
            try session.query("CREATE TABLE IF NOT EXISTS atoll_relay_meta (key text PRIMARY KEY, value text NOT NULL)")
            let found = try session.query("SELECT value FROM atoll_relay_meta WHERE key = 'schema_version'").first
            var created = false
            if let found {
                let text = try found.decode(String.self)
                guard let stored = Int(text) else {
                    throw AtollError(.fileCorrupted, "the PostgreSQL database \(session.location) holds relay schema version '\(text)', which is not a number")
                }
                guard stored <= version else {
                    throw AtollError(.fileFormatTooNew,
                        "the PostgreSQL database \(session.location) holds relay schema version \(stored); this atoll-relay knows up to \(version): upgrade atoll-relay")
                }
                if stored < version {
                    if stored < 2 { for statement in versionTwo { try session.query(PostgresQuery(unsafeSQL: statement)) } }
                    if stored < 3 { for statement in versionThree { try session.query(PostgresQuery(unsafeSQL: statement)) } }
                    if stored < 4 { for statement in versionFour { try session.query(PostgresQuery(unsafeSQL: statement)) } }
                    if stored < 5 { for statement in versionFive { try session.query(PostgresQuery(unsafeSQL: statement)) } }
                    if stored < 6 { for statement in versionSix { try session.query(PostgresQuery(unsafeSQL: statement)) } }
                    if stored < 7 { for statement in versionSeven { try session.query(PostgresQuery(unsafeSQL: statement)) } }
                    if stored < 8 { for statement in versionEight { try session.query(PostgresQuery(unsafeSQL: statement)) } }
                    try session.query("UPDATE atoll_relay_meta SET value = \(String(version)) WHERE key = 'schema_version'")
                }
            } else {
                for statement in versionOne + versionTwo + versionThree + versionFour + versionFive + versionSix + versionSeven + versionEight {
                    try session.query(PostgresQuery(unsafeSQL: statement))
                }
                let id = newRelayID ?? NodeID.random()
                try session.query("INSERT INTO atoll_relay_meta (key, value) VALUES ('schema_version', \(String(version))), ('relay_id', \(id.description))")
                created = true
            }
            guard let row = try session.query("SELECT value FROM atoll_relay_meta WHERE key = 'relay_id'").first,
                  let relayID = NodeID(hex: try row.decode(String.self))
            else {
                throw AtollError(.fileCorrupted, "the PostgreSQL database \(session.location) has no valid relay id in atoll_relay_meta")
            }
            return (relayID, created)
        } }
    }
}

/// `atoll-relay migrate`: the schema made current, on a connection of its own.
package enum PostgresRelayMigration {
    package static func run(location: PostgresLocation, logger: Logger) throws -> (version: Int, created: Bool, relayID: NodeID) {
        let session = PostgresSession(location: location, logger: logger)
        defer { session.close() }
        let outcome = try PostgresRelaySchema.migrate(session)
        return (PostgresRelaySchema.version, outcome.created, outcome.relayID)
    }
}
