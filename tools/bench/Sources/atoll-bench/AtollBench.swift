#if canImport(Glibc)
import Glibc
#endif

/// `atoll-bench <suite> [--json] [--scale F] [--runs N] [--dir PATH] [--only NAMES]`
///
/// Suites: `storage` (the engine on its own), `compare` (the same workloads on Atoll and on
/// SQLite through GRDB), `encryption` (compare workloads W1, W2, W3, W6 with and without a key),
/// `sync` (S1–S7: sync apply, latency over TLS, wire bytes, catch-up, metadata under churn), `relay` (R1–R3:
/// atoll-relay processes on their Atoll file and on a shared PostgreSQL), `values` (V1–V4: sets,
/// maps and Decimal128 against SQLite child tables), `lists` (L1–L4: one large List against a
/// SQLite child table), `concurrency` (C1–C2: actors writing one
/// file, commit to AsyncSequence latency). Never run inside `swift test`.
@main
struct AtollBench {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            if arguments.first == OpenProbe.subcommand {
                arguments.removeFirst()
                try OpenProbe.runChild(arguments)
                return
            }
            if arguments.first == LiveNotifications.subcommand {
                arguments.removeFirst()
                try LiveNotifications.runChild(arguments)
                return
            }
            let options = try BenchOptions.parse(arguments)
            let reporter = Reporter(json: options.json)
            switch options.suite {
            case "storage": try StorageSuite(options: options, reporter: reporter).run()
            case "compare": try CompareSuite(options: options, reporter: reporter).run()
            case "encryption": try EncryptionSuite(options: options, reporter: reporter).run()
            case "sync": try SyncSuite(options: options, reporter: reporter).run()
            case "relay": try RelaySuite(options: options, reporter: reporter).run()
            case "values": try ValuesSuite(options: options, reporter: reporter).run()
            case "lists": try ListsSuite(options: options, reporter: reporter).run()
            case "concurrency": try ConcurrencySuite(options: options, reporter: reporter).run()
            case "profile":
                try ProfileRun(options: options).run()
                return
            default: throw BenchError("unknown suite '\(options.suite)'\n" + BenchOptions.usage)
            }
            reporter.finish(header: MachineFacts.header(suite: options.suite, options: options))
        } catch {
            writeStandardError("atoll-bench: \(error)\n")
            exit(1)
        }
    }
}

struct BenchOptions {
    static let usage = """
        usage: atoll-bench <storage|compare|encryption|sync|relay|values|lists|concurrency> [--json] [--scale F] [--runs N] [--dir PATH] [--only NAME,...]
               atoll-bench profile --only W3,... [--engine atoll|sqlite] [--scale F] [--runs N]  (for profilers)
          --json       one JSON object per line instead of the table
          --scale F    multiply object counts by F (default 1.0; CI smoke runs use 0.01)
          --runs N     measured runs per figure (default: 5 for reads, 3 for rebuilding workloads)
          --dir PATH   where database files are created (default /tmp/atoll-bench)
          --only LIST  only the named workloads (compare: W1,W3; sync: S1,...,S7; values: V2,V3; lists: L2,L4; storage: insert,scan,...; relay: R1,R2,R3 or R1_pg2_hot,...; concurrency: C1,C2)
          --engine E   profile: the engine to run (default atoll)
          --sqlite-cache-mib N  SQLite page cache per connection (default \(SQLiteTuning.defaultCacheMebibytes); 0: SQLite's 2 MiB)
          --sqlite-mmap-mib N   SQLite memory-mapped I/O size (default \(SQLiteTuning.defaultMmapMebibytes); 0: off)
        """

    var suite = ""
    var json = false
    var scale = 1.0
    var runs: Int?
    var directory = "/tmp/atoll-bench"
    var only: Set<String>?
    var engine = "atoll"
    var sqliteCacheMebibytes = SQLiteTuning.defaultCacheMebibytes
    var sqliteMmapMebibytes = SQLiteTuning.defaultMmapMebibytes

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var o = BenchOptions()
        var i = 0
        func value(_ flag: String) throws -> String {
            i += 1
            guard i < arguments.count else { throw BenchError("\(flag) needs a value\n" + usage) }
            return arguments[i]
        }
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "--json": o.json = true
            case "--scale":
                guard let s = Double(try value(a)), s > 0, s <= 10 else { throw BenchError("--scale takes a number in (0, 10]") }
                o.scale = s
            case "--runs":
                guard let n = Int(try value(a)), n >= 1, n <= 100 else { throw BenchError("--runs takes an integer in 1...100") }
                o.runs = n
            case "--dir": o.directory = try value(a)
            case "--engine": o.engine = try value(a)
            case "--only": o.only = Set(try value(a).split(separator: ",").map { String($0) })
            case "--sqlite-cache-mib", "--sqlite-mmap-mib":
                guard let n = Int(try value(a)), n >= 0, n <= 65536 else { throw BenchError("\(a) takes an integer in 0...65536") }
                if a == "--sqlite-cache-mib" { o.sqliteCacheMebibytes = n } else { o.sqliteMmapMebibytes = n }
            case "-h", "--help": throw BenchError(usage)
            default:
                guard o.suite.isEmpty, !a.hasPrefix("-") else { throw BenchError("unexpected argument '\(a)'\n" + usage) }
                o.suite = a
            }
            i += 1
        }
        guard !o.suite.isEmpty else { throw BenchError("no suite given\n" + usage) }
        return o
    }

    /// `base` objects scaled, never fewer than `minimum`.
    func scaled(_ base: Int, minimum: Int) -> Int { max(minimum, Int((Double(base) * scale).rounded())) }

    /// A sampling plan with the --runs override applied.
    func plan(_ base: SamplingPlan) -> SamplingPlan {
        guard let runs else { return base }
        return SamplingPlan(warmups: base.warmups, runs: runs)
    }

    func includes(_ name: String) -> Bool { only?.contains(name) ?? true }
}

/// Facts about the machine printed above each table, so a figure is never read without them.
enum MachineFacts {
    static func header(suite: String, options: BenchOptions) -> [String] {
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: &u.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return [
            "atoll-bench \(suite)  scale \(Format.number(options.scale))  runs: median after warm-up  dir \(options.directory)",
            "machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, Linux \(release) \(machine), \(memoryGiB()) GiB RAM",
        ]
    }

    private static func memoryGiB() -> Int {
        Int((Double(sysconf(Int32(_SC_PHYS_PAGES))) * Double(sysconf(Int32(_SC_PAGESIZE))) / Double(1 << 30)).rounded())
    }
}
