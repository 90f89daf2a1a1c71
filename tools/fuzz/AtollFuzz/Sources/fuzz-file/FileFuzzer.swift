@testable import AtollStorage
import Foundation
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// A damaged database file: the input is the whole file (seeds are small valid files). It is
// written to a scratch file on tmpfs, opened read-only with the storage API, and read
// completely: every table, row, column, list, primary key, index lookup, backlink and
// aggregate, the catalog metadata, every stored transaction log, every internal tree; then
// `verify` and `stats`.
//
// Page and header checksums are repaired after mutation for 7 inputs in 8 (chosen by a hash of
// the input), so that mutations reach the decoders behind them instead of stopping at CRC32C;
// the eighth keeps the damage visible to the checksum checks.
//
// Checked: every outcome is a value or an AtollError of a kind that describes a bad file;
// never a crash, a hang (libFuzzer -timeout) or an allocation by a size read from the file
// (-malloc_limit_mb).

private let outcome = Outcome(target: "fuzz-file", allowedKinds: [.fileCorrupted, .notAnAtollFile, .fileFormatTooNew, .fileEncrypted])
private let rowOutcome = Outcome(target: "fuzz-file", allowedKinds: outcome.allowedKinds.union([.objectNotFound]))
private let scratch: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let dir = "\(base)/atoll-fuzz-file-\(getpid())"
    mkdir(dir, 0o755)
    return dir
}()
private let path = scratch + "/fuzz.atoll"

@main
enum FileFuzzMain {
    static func main() {
        atexit {
            unlink(path)
            unlink(path + ".lock")
            rmdir(scratch)
        }
        FuzzDriver.run(seeds: { try FileSeeds.all(in: scratch) }, fuzzFile)
    }
}

func fuzzFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var file = fuzzInput(data, size)
    if CRC32C.checksum(file) % 8 != 0 { PageChecksums.repair(&file) }
    guard write(file) else { outcome.violation("cannot write the scratch file \(path)") }
    readEverything()
    return 0
}

private func write(_ bytes: [UInt8]) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return bytes.withUnsafeBytes { buffer in
        var done = 0
        while done < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
            if n <= 0 { return false }
            done += n
        }
        return true
    }
}

private func readEverything() {
    let configuration = DatabaseConfiguration(path: path, durability: .unsafe, readOnly: true, createIfMissing: false)
    guard let database = outcome.check("open", { try Database.open(configuration) }) else { return }
    if let read = outcome.check("begin read", { try database.beginRead() }) {
        defer { read.close() }
        readTables(read)
        readHistoryAndTrees(read)
    }
    outcome.check("verify", { try database.verify() })
    outcome.check("stats", { try database.stats() })
}

private func readTables(_ read: ReadTransaction) {
    for tableKey in read.tableKeys {
        guard let spec = read.spec(of: tableKey), let table = outcome.check("table \(tableKey)", { try read.table(tableKey) }) else { continue }
        _ = table.count
        guard let keys = outcome.check("keys of \(spec.name)", { try table.objectKeys() }) else { continue }
        for (position, key) in keys.prefix(2000).enumerated() {
            // A damaged tree whose checksums were repaired can list a key that a lookup by key
            // then misses (inner nodes route by first keys); files with their checksums intact
            // cannot get here.
            rowOutcome.check("row \(key)", {
                _ = try table.contains(key)
                _ = try table.position(of: key)
                _ = try table.objectKey(at: position)
                if spec.primaryKeyIndex != nil {
                    let pk = try table.primaryKeyValue(key)
                    _ = try table.find(primaryKey: pk)
                }
                _ = try table.backlinkCount(to: key)
                for (c, column) in spec.columns.enumerated() {
                    if column.isList {
                        _ = try table.listValues(key, c)
                    } else {
                        let value = try table.value(key, c)
                        if table.hasIndex(c) { _ = try table.findAll(indexed: c, equalTo: value) }
                    }
                }
            })
        }
        for (c, column) in spec.columns.enumerated() where !column.isList {
            for kind in [ColumnAggregate.sum, .min, .max, .average, .count] {
                // Aggregating a column of a type that has no such aggregate is a usage error, and
                // a sum of valid values may overflow 64 bits.
                Outcome(target: outcome.target, allowedKinds: outcome.allowedKinds.union([.typeMismatch, .limitExceeded])).check("aggregate \(spec.name).\(column.name)", {
                    try table.aggregate(c, kind)
                })
            }
        }
        if let origin = spec.columns.firstIndex(where: { $0.type == .link }), let first = keys.first {
            outcome.check("backlinks", { try table.backlinks(to: first, from: tableKey, column: origin) })
        }
    }
}

private func readHistoryAndTrees(_ read: ReadTransaction) {
    outcome.check("metadata", { try read.metadata("atoll.schemaVersion") })
    if let versions = outcome.check("logged versions", { try read.loggedVersions() }) {
        for version in versions.prefix(1000) {
            outcome.check("log of \(version)", {
                if let log = try read.log(of: version) { _ = try TransactionLogReader.decodeAll(log) }
            })
        }
    }
    if let names = outcome.check("internal trees", { try read.internalTreeNames() }) {
        for name in names {
            var entries = 0
            outcome.check("internal tree \(name)", {
                try read.forEachInternalEntry(name, from: []) { _, _ in
                    entries += 1
                    return entries < 10_000
                }
            })
        }
    }
}

/// Recomputes the checksums the format defines (docs/FORMAT.md, Checksums), wherever the bytes
/// allow: the file header and root slots (CRC32C of bytes 0..<124 at 124), tree pages and blob
/// runs (`PageChecksum`, of the format and file id the header names).
enum PageChecksums {
    static let pageSize = FileFormat.pageSize

    static func repair(_ file: inout [UInt8]) {
        let pages = file.count / pageSize
        guard pages > 0 else { return }
        file.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let header = UnsafeRawPointer(base)
            let checksum = PageChecksum(formatVersion: header.u32(8), fileId: Array(UnsafeRawBufferPointer(start: header + 24, count: 16)))
            for page in 0..<min(pages, 3) {
                let p = base + page * pageSize
                p.storeBytes(of: CRC32C.checksum(UnsafeRawPointer(p), count: 124).littleEndian, toByteOffset: 124, as: UInt32.self)
            }
            var page = 3
            while page < pages {
                let p = base + page * pageSize
                var run = 1
                var crc = checksum.page(UnsafeRawPointer(p), number: PageNumber(page))
                if p.load(fromByteOffset: 4, as: UInt8.self) == PageType.blob.rawValue {
                    let count = Int(UnsafeRawPointer(p).u32(8))
                    let length = Int(UnsafeRawPointer(p).u32(12))
                    if count >= 1, page + count <= pages, 16 + length <= count * pageSize {
                        run = count
                        crc = checksum.blob(UnsafeRawPointer(p), number: PageNumber(page), length: length)
                    }
                }
                p.storeBytes(of: crc.littleEndian, as: UInt32.self)
                page += run
            }
        }
    }
}
