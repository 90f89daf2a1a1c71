import CFuzzerDriver
#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with the process's arguments and `testOneInput` as the target, after writing
/// the seed corpus instead when `ATOLL_FUZZ_WRITE_SEEDS` asks for it. Call from `@main`.
public enum FuzzDriver {
    public static func run(
        seeds: () throws -> [(name: String, bytes: [UInt8])],
        _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> Never {
        SeedCorpus.writeIfRequested(seeds)
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
    }
}
