/// What a figure counts, and which way is better. The ratio column always reads "> 1: Atoll is
/// better": sqlite/atoll for times and sizes, atoll/sqlite for rates.
struct Unit: Sendable, Equatable {
    enum Better: Sendable { case lower, higher }

    let symbol: String
    let better: Better

    static let bytes = Unit(symbol: "bytes", better: .lower)
    static let milliseconds = Unit(symbol: "ms", better: .lower)
    static let microseconds = Unit(symbol: "us", better: .lower)
    static let rowsPerSecond = Unit(symbol: "rows/s", better: .higher)
    static let lookupsPerSecond = Unit(symbol: "lookups/s", better: .higher)
    static let queriesPerSecond = Unit(symbol: "queries/s", better: .higher)
    static let commitsPerSecond = Unit(symbol: "commits/s", better: .higher)
    static let syncsPerSecond = Unit(symbol: "syncs/s", better: .higher)
    static let objects = Unit(symbol: "objects", better: .higher)
    static let percent = Unit(symbol: "%", better: .higher)
}

/// The goal a figure is held to (from the issues), shown in the table's target column.
enum Target: Sendable {
    /// No goal: the figure is context.
    case none
    /// The figure is reported, with no goal.
    case report
    /// Atoll's value must be at most this (in the measurement's unit).
    case atMost(Double, label: String)
    /// Atoll's value must be at least this (in the measurement's unit).
    case atLeast(Double, label: String)
    /// The ratio (> 1: Atoll better) must be at least this.
    case ratioAtLeast(Double)

    var label: String {
        switch self {
        case .none: ""
        case .report: "report"
        case .atMost(_, let label): "<= " + label
        case .atLeast(_, let label): ">= " + label
        case .ratioAtLeast(let r): ">= " + Format.number(r) + "x"
        }
    }
}

/// One line of a suite's result: a storage figure (Atoll only), a compare figure (both engines),
/// or a placeholder for a workload that is not implemented yet.
struct Measurement: Sendable {
    let suite: String
    let name: String
    let unit: Unit
    var atoll: Double?
    var sqlite: Double?
    var target: Target = .none
    /// Shown after the table (and in JSON) for context, e.g. "not yet implemented".
    var note: String?
    /// Whether the figure compares two engines (JSON `atoll`/`sqlite`/`ratio`) or is one value
    /// (JSON `value`): storage figures and machine facts such as the fsync rate.
    var isSideBySide: Bool

    init(suite: String, name: String, unit: Unit, atoll: Double? = nil, sqlite: Double? = nil, target: Target = .none,
         note: String? = nil, isSideBySide: Bool? = nil)
    {
        self.suite = suite; self.name = name; self.unit = unit; self.atoll = atoll; self.sqlite = sqlite
        self.target = target; self.note = note
        self.isSideBySide = isSideBySide ?? (suite != "storage")
    }

    /// > 1 means Atoll is better; nil without both figures.
    var ratio: Double? {
        guard let a = atoll, let s = sqlite, a > 0, s > 0 else { return nil }
        switch unit.better {
        case .lower: return s / a
        case .higher: return a / s
        }
    }

    /// Whether the target is met; nil when there is no target or no figure.
    var meetsTarget: Bool? {
        switch target {
        case .none, .report: return nil
        case .atMost(let limit, _): return atoll.map { $0 <= limit }
        case .atLeast(let limit, _): return atoll.map { $0 >= limit }
        case .ratioAtLeast(let r): return ratio.map { $0 >= r }
        }
    }
}
