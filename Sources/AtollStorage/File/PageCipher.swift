// Encrypted data files, byte by byte (docs/FORMAT.md, "Encryption", has the full description).
//
// A file whose header has flag bit 0 set stores every tree and blob page encrypted with
// AES-256-CTR and authenticated with HMAC-SHA256. Pages 0-2 (header, root slots) stay in the
// clear, at their usual offsets, so that the file can be identified, its key checked and its
// newest version found before any page is decrypted; the root slots carry an HMAC instead.
//
// Physical layout. Logical page n >= 3 (the page numbers every tree uses) lives at physical
// page n + 1 + (n - 3) / 64: the data pages come in groups of 64, each group preceded by one
// metadata page holding the 64 entries of its pages.
//
//     physical 0, 1, 2        header, root slot 1, root slot 2 (as in an unencrypted file)
//     physical 3              metadata of logical pages 3..<67
//     physical 4..<68         logical pages 3..<67, ciphertext
//     physical 68             metadata of logical pages 67..<131
//     ...
//
// Metadata entry of page n (64 bytes, at byte (n - 3) % 64 * 64 of its metadata page):
//
//     0   u64  counter of the current ciphertext (0: the page was never written)
//     8   [24] HMAC-SHA256 of the current ciphertext, first 24 bytes
//     32  u64  counter of the previous ciphertext (0: none)
//     40  [24] HMAC-SHA256 of the previous ciphertext, first 24 bytes
//
// Keys. The 64-byte user key K is split: K[0..<32] is the encryption key material, K[32..<64]
// the authentication key material. Each file derives its own keys with HKDF-SHA256, salted
// with the file's random 16-byte id, so two files under one key never share a keystream:
//     Kenc = HKDF(K[0..<32],  salt: file id, info: "atoll page encryption v1", 32 bytes)
//     Kmac = HKDF(K[32..<64], salt: file id, info: "atoll page authentication v1", 32 bytes)
//
// Page n with counter c:
//     IV         = u32 BE n || u64 BE c || u32 0  (the low word counts the 256 AES blocks of
//                  the page and never carries into c)
//     ciphertext = AES-256-CTR(Kenc, IV, plaintext)
//     HMAC       = HMAC-SHA256(Kmac, u32 LE n || u64 LE c || ciphertext), first 24 bytes
// Binding n and c into the HMAC means a page cannot be moved to another position or paired
// with another counter without detection.
//
// Counters are unique per file, not merely per page: c = epoch << 32 | sequence, where the
// epoch is reserved durably (both root slots rewritten and synced) by a process before it
// encrypts its first page, and the sequence counts that process's page writes. The root slots
// carry the highest epoch ever reserved, so after a crash, even a power failure that loses
// pages written by an interrupted commit, the next writer starts above every counter that may
// have reached the disk: an IV is never used twice with one key.
//
// Crash safety. A commit writes a page's metadata entry (moving the current counter and HMAC
// into the previous slot) before its ciphertext; both are synced before the root slot. Pages
// are copy-on-write, so a page a durable version references is never rewritten; should a
// rewrite of any page be interrupted, the old ciphertext still matches the previous pair and
// the new one the current pair, and a reader accepts whichever matches.

import Crypto
import _CryptoExtras
import Foundation

enum EncryptedLayout {
    /// Header flag bit: the file's pages are encrypted.
    static let headerFlag: UInt32 = 1
    /// Value of the header's scheme field (offset 48) for this layout.
    static let scheme: UInt32 = 1
    static let pagesPerGroup = 64
    static let entryBytes = 64
    static let macBytes = 24
    static let keyCheckBytes = 32

    /// Physical page of logical page `n`.
    @inline(__always)
    static func physicalPage(_ n: PageNumber) -> Int {
        n < FileFormat.firstDataPage ? Int(n) : Int(n) + 1 + ((Int(n) - 3) >> 6)
    }

    /// Byte offset of the metadata entry of logical page `n` (n >= 3) in the file.
    @inline(__always)
    static func entryOffset(_ n: PageNumber) -> Int {
        let k = Int(n) &- Int(FileFormat.firstDataPage)
        return ((Int(FileFormat.firstDataPage) + (k >> 6) * (pagesPerGroup + 1)) << FileFormat.pageShift) + ((k & 63) << 6)
    }

    /// Physical pages a file needs to hold logical pages 0..<count.
    static func physicalPageCount(_ count: UInt32) -> Int {
        count <= FileFormat.firstDataPage ? Int(count) : physicalPage(count - 1) + 1
    }

    /// The key check stored in the header: HMAC-SHA256 keyed with all 64 key bytes over a label
    /// and the file id. A wrong key (either half) fails it before any page is read.
    static func keyCheck(_ key: EncryptionKey, fileId: [UInt8]) -> [UInt8] {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: key.bytes))
        mac.update(data: Array("atoll key check v1".utf8))
        mac.update(data: fileId)
        return Array(mac.finalize())
    }
}

/// The per-file keys of an encrypted file, and the page and root-slot transforms.
struct PageCipher: Sendable {
    private let encryptionKey: SymmetricKey
    private let authenticationKey: SymmetricKey
    /// HMAC state after absorbing the key: copying it skips the key schedule per page.
    private let keyedMAC: HMAC<SHA256>

    init(key: EncryptionKey, fileId: [UInt8]) {
        let salt = fileId
        encryptionKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key.bytes[0..<32]), salt: salt,
                                               info: Array("atoll page encryption v1".utf8), outputByteCount: 32)
        authenticationKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key.bytes[32..<64]), salt: salt,
                                                   info: Array("atoll page authentication v1".utf8), outputByteCount: 32)
        keyedMAC = HMAC<SHA256>(key: authenticationKey)
    }

    private static func nonce(page n: PageNumber, counter: UInt64) throws -> AES._CTR.Nonce {
        try withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { iv in
            iv.storeBytes(of: n.bigEndian, toByteOffset: 0, as: UInt32.self)
            iv.storeBytes(of: counter.bigEndian, toByteOffset: 4, as: UInt64.self)
            iv.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)
            return try AES._CTR.Nonce(nonceBytes: UnsafeRawBufferPointer(iv))
        }
    }

    /// Encrypts one 4096-byte page into `ciphertext` and returns its truncated HMAC.
    func seal(page n: PageNumber, counter: UInt64, plaintext: UnsafeRawPointer, into ciphertext: UnsafeMutableRawPointer) throws -> PageMAC {
        try applyKeystream(page: n, counter: counter, input: plaintext, into: ciphertext)
        return mac(page: n, counter: counter, ciphertext: UnsafeRawPointer(ciphertext))
    }

    /// Decrypts one 4096-byte page (whose HMAC the caller has checked) into `plaintext`.
    func open(page n: PageNumber, counter: UInt64, ciphertext: UnsafeRawPointer, into plaintext: UnsafeMutableRawPointer) throws {
        try applyKeystream(page: n, counter: counter, input: ciphertext, into: plaintext)
    }

    /// AES-256-CTR over one page: encryption and decryption are the same operation.
    private func applyKeystream(page n: PageNumber, counter: UInt64, input: UnsafeRawPointer, into output: UnsafeMutableRawPointer) throws {
        let result = try AES._CTR.encrypt(UnsafeRawBufferPointer(start: input, count: FileFormat.pageSize),
                                          using: encryptionKey, nonce: try Self.nonce(page: n, counter: counter))
        guard result.count == FileFormat.pageSize else {
            throw AtollError(.ioError, "AES-CTR returned \(result.count) bytes for a \(FileFormat.pageSize)-byte page")
        }
        result.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress { output.copyMemory(from: source, byteCount: FileFormat.pageSize) }
        }
    }

    /// HMAC-SHA256(Kmac, u32 LE n || u64 LE counter || ciphertext), truncated to 24 bytes.
    func mac(page n: PageNumber, counter: UInt64, ciphertext: UnsafeRawPointer) -> PageMAC {
        var h = keyedMAC
        var prefix = (n.littleEndian, counter.littleEndian)
        withUnsafeBytes(of: &prefix) { p in
            // The tuple is padded to 16 bytes: authenticate the 12 meaningful ones.
            h.update(data: UnsafeRawBufferPointer(rebasing: p[0..<4]))
            h.update(data: UnsafeRawBufferPointer(rebasing: p[8..<16]))
        }
        h.update(data: UnsafeRawBufferPointer(start: ciphertext, count: FileFormat.pageSize))
        return h.finalize().withUnsafeBytes { PageMAC($0) }
    }

    /// The root slot's HMAC: HMAC-SHA256(Kmac, "atoll root slot" || slot bytes 0..<88), and
    /// when the record has a commit page list (entry count at 36 not 0, format 3) followed by
    /// the list's CRC32C (bytes 120..<124), so the list is authenticated with the record.
    func slotMAC(_ slot: UnsafeRawPointer) -> [UInt8] {
        var h = keyedMAC
        h.update(data: Self.slotLabel)
        h.update(data: UnsafeRawBufferPointer(start: slot, count: RootRecord.authenticatedBytes))
        if slot.u32(36) != 0 {
            h.update(data: UnsafeRawBufferPointer(start: slot + RootRecord.commitListChecksumOffset, count: 4))
        }
        return Array(h.finalize())
    }

    private static let slotLabel = Array("atoll root slot".utf8)
}

/// The first 24 bytes of a page's HMAC-SHA256, as stored in its metadata entry.
struct PageMAC: Equatable {
    var words: (UInt64, UInt64, UInt64)

    init(_ bytes: UnsafeRawBufferPointer) {
        words = (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                 bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                 bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    }

    init(at p: UnsafeRawPointer) { self.init(UnsafeRawBufferPointer(start: p, count: 24)) }

    func store(at p: UnsafeMutableRawPointer) {
        p.storeBytes(of: words.0, toByteOffset: 0, as: UInt64.self)
        p.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
        p.storeBytes(of: words.2, toByteOffset: 16, as: UInt64.self)
    }

    /// Constant-time comparison.
    static func == (a: PageMAC, b: PageMAC) -> Bool {
        ((a.words.0 ^ b.words.0) | (a.words.1 ^ b.words.1) | (a.words.2 ^ b.words.2)) == 0
    }
}
