#if canImport(Glibc)
import Glibc
#endif

/// The bytes libFuzzer passes to `LLVMFuzzerTestOneInput`, as an array (the targets decode
/// from arrays, as their production callers do).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Seed corpora: `ATOLL_FUZZ_WRITE_SEEDS=DIR` makes a target write its seeds (built from real,
/// valid inputs by the library's own encoders) into DIR and exit, instead of fuzzing.
/// `tools/fuzz/run --seeds` uses it to regenerate `Fixtures/fuzz/<target>/`.
public enum SeedCorpus {
    public static func writeIfRequested(_ seeds: () throws -> [(name: String, bytes: [UInt8])]) {
        guard let directory = getenv("ATOLL_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else { return }
        do {
            let all = try seeds()
            mkdir(directory, 0o755)
            for seed in all {
                let path = directory + "/" + seed.name
                guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
                _ = seed.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                fclose(file)
            }
            print("wrote \(all.count) seeds to \(directory)")
            exit(0)
        } catch {
            fatalError("building the seeds failed: \(error)")
        }
    }
}

/// A small deterministic generator for choices a target derives from its input (chunk sizes,
/// which checksums to repair), so every input replays exactly.
public struct InputRandom {
    private var state: UInt64

    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    public mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func below(_ bound: Int) -> Int {
        bound <= 1 ? 0 : Int(next() % UInt64(bound))
    }
}
