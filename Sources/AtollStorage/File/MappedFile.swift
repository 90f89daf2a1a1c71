// MappedFile: one data file (or an anonymous memfd for in-memory databases) and its mappings.
//
// Layout and invariants
// - The whole file is mapped MAP_SHARED, read-write, at a *reservation* larger than the file
//   (at least 1 GiB of address space, four times the file size when that is more). Growing the
//   file with posix_fallocate/ftruncate inside the reservation needs no remap, so every pointer
//   a snapshot holds into the map stays valid (LMDB's approach).
// - When the file outgrows the reservation, a new, larger mapping is made. The old mapping is
//   *retired, not unmapped*: snapshots that captured its base pointer keep reading through it
//   (the pages they see are below the file size they saw, and page contents a snapshot can see
//   never change). Retired mappings are unmapped when the file is closed, i.e. after every
//   snapshot, transaction and object that could hold a pointer has released the database.
// - Pages beyond the end of the file are never touched: every page number read from the file
//   is checked against the snapshot's page count before it is turned into a pointer, and the
//   writer grows the file before it writes a page. Growth uses posix_fallocate so that a full
//   disk is an error at grow time rather than a SIGBUS on a later store.
// - Shrinking truncates only pages that no snapshot can see (see PageAllocator). Another
//   process may have shrunk the file since this one last looked, so the cached size is
//   re-read under the writer lock before a write transaction allocates (`refreshSize`).
// - Every durability point (sync, grow, shrink) is reported to the file's DurabilityObserver,
//   which only tests that simulate power loss register (DurabilitySeam.swift).

#if canImport(Glibc)
import Glibc
#endif
import CAtollShims
import Synchronization

final class MappedFile: Sendable {
    let fd: Int32
    let path: String
    let isAnonymous: Bool
    let isWritable: Bool
    /// Grow without reserving space (ftruncate only): memory files whose pages are used sparsely.
    let isSparse: Bool

    private let state: AtollLock<MapStateBox>
    /// Sees this file's durability points (power-loss tests only; nil otherwise).
    private let observer: (any DurabilityObserver)?
    /// The smallest address-space reservation (tests make it small to exercise remapping).
    let reservationBytesMin: Int

    static let minimumReservationBytes = 1 << 30

    /// Opens (or creates) a file-backed map. `create`: create the file when missing.
    init(path: String, writable: Bool, create: Bool, reservationBytesMin: Int = MappedFile.minimumReservationBytes) throws {
        var flags = O_CLOEXEC | (writable ? O_RDWR : O_RDONLY)
        if create { flags |= O_CREAT }
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw AtollError.posix("opening", path: path, errno: errno) }
        self.fd = fd
        self.path = path
        self.isAnonymous = false
        self.isWritable = writable
        self.reservationBytesMin = reservationBytesMin
        self.isSparse = false
        do {
            let size = try Self.size(of: fd, path: path)
            let box = try Self.map(fd: fd, fileSize: size, writable: writable, path: path, reservationBytesMin: reservationBytesMin)
            state = AtollLock(box)
        } catch {
            close(fd)
            throw error
        }
        observer = DurabilitySeam.observer(for: path)
        observer?.opened(path: path, fd: fd, created: create)
    }

    /// An anonymous, memory-resident file (memfd): in-memory databases, and the decrypted pages
    /// of an encrypted file (`sparse`: growing it allocates no memory until pages are touched).
    init(anonymousNamed name: String, sparse: Bool = false, reservationBytesMin: Int = MappedFile.minimumReservationBytes) throws {
        let fd = atoll_memfd_create(name)
        guard fd >= 0 else { throw AtollError.posix("creating in-memory file", path: name, errno: -fd) }
        self.fd = fd
        self.path = name
        self.isAnonymous = true
        self.isWritable = true
        self.reservationBytesMin = reservationBytesMin
        self.isSparse = sparse
        observer = nil
        do {
            state = AtollLock(try Self.map(fd: fd, fileSize: 0, writable: true, path: name, reservationBytesMin: reservationBytesMin))
        } catch {
            close(fd)
            throw error
        }
    }

    deinit {
        observer?.closed(path: path, fd: fd)
        state.withLock { box in
            munmap(box.base, box.reservedBytes)
            for (base, length) in box.retired { munmap(base, length) }
        }
        close(fd)
    }

    private static func size(of fd: Int32, path: String) throws -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw AtollError.posix("reading the size of", path: path, errno: errno) }
        return Int(st.st_size)
    }

    private static func reservation(for fileSize: Int, minimum: Int) -> Int {
        var r = minimum
        while r < fileSize * 4 { r *= 2 }
        return r
    }

    private static func map(fd: Int32, fileSize: Int, writable: Bool, path: String, reservationBytesMin: Int) throws -> MapStateBox {
        let reserved = reservation(for: fileSize, minimum: reservationBytesMin)
        let prot = writable ? (PROT_READ | PROT_WRITE) : PROT_READ
        guard let p = mmap(nil, reserved, prot, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw AtollError.posix("mapping", path: path, errno: errno)
        }
        return MapStateBox(base: p, reservedBytes: reserved, fileSizeBytes: fileSize)
    }

    /// The current mapping base. Pointers derived from it stay valid until the file closes.
    var base: UnsafeMutableRawPointer { state.withLock { $0.base } }

    var fileSizeBytes: Int { state.withLock { $0.fileSizeBytes } }

    /// Re-reads the file size (another process may have grown or shrunk it) and makes sure the
    /// mapping covers at least `bytes`. Returns the base pointer to use.
    func mapping(covering bytes: Int) throws -> UnsafeMutableRawPointer {
        try state.withLock { box in
            if bytes > box.fileSizeBytes {
                box.fileSizeBytes = try Self.size(of: fd, path: path)
                guard bytes <= box.fileSizeBytes else {
                    throw AtollError.corrupted("'\(path)' is \(box.fileSizeBytes) bytes but its header needs \(bytes)")
                }
            }
            if bytes > box.reservedBytes { try remap(&box, toCover: bytes) }
            return box.base
        }
    }

    /// The file's size now (fstat), without changing what the map assumes.
    func currentSizeBytes() throws -> Int {
        try Self.size(of: fd, path: path)
    }

    /// Re-reads the file size, which another process may have grown or shrunk. The writer calls
    /// this once it holds the writer lock: from then on only it changes the size, so `grow`
    /// (which trusts the cached size) never skips growing a file another process shrank, and
    /// never stores past the end of the file (SIGBUS).
    @discardableResult
    func refreshSize() throws -> Int {
        try state.withLock { box in
            box.fileSizeBytes = try Self.size(of: fd, path: path)
            return box.fileSizeBytes
        }
    }

    /// Grows the file so that it holds at least `bytes`, geometrically (by at least 1/8 of the
    /// current size, at least 256 KiB), reserving disk space so later stores cannot fault.
    func grow(toAtLeast bytes: Int) throws -> UnsafeMutableRawPointer {
        let (base, grownTo) = try state.withLock { box -> (UnsafeMutableRawPointer, Int?) in
            if bytes <= box.fileSizeBytes { return (box.base, nil) }
            let step = max(box.fileSizeBytes / 8, 256 << 10)
            var newSize = max(bytes, box.fileSizeBytes + step)
            newSize = (newSize + 4095) & ~4095
            // Both calls may be interrupted by a signal (a child process exiting): retry.
            var rc = EINTR
            while rc == EINTR { rc = isSparse ? EOPNOTSUPP : posix_fallocate(fd, 0, off_t(newSize)) }
            if rc != 0 {
                // Filesystems without fallocate support: extend with ftruncate instead.
                if rc == EOPNOTSUPP || rc == EINVAL {
                    var result = ftruncate(fd, off_t(newSize))
                    while result != 0 && errno == EINTR { result = ftruncate(fd, off_t(newSize)) }
                    guard result == 0 else {
                        throw AtollError.posix("growing", path: path, errno: errno)
                    }
                } else {
                    throw AtollError.posix("growing", path: path, errno: rc)
                }
            }
            box.fileSizeBytes = newSize
            if newSize > box.reservedBytes { try remap(&box, toCover: newSize) }
            return (box.base, newSize)
        }
        if let grownTo { observer?.didResize(path: path, fd: fd, toBytes: grownTo) }
        return base
    }

    /// Truncates the file to `bytes` (only called for a tail no snapshot can see).
    func shrink(to bytes: Int) throws {
        let shrunk = try state.withLock { box in
            guard bytes < box.fileSizeBytes else { return false }
            guard ftruncate(fd, off_t(bytes)) == 0 else { throw AtollError.posix("shrinking", path: path, errno: errno) }
            box.fileSizeBytes = bytes
            return true
        }
        if shrunk { observer?.didResize(path: path, fd: fd, toBytes: bytes) }
    }

    /// Releases the memory of a memory file from byte `offset` to its end; the range reads as
    /// zeros afterwards and the size is unchanged (truncating could make a stale pointer fault).
    func discard(from offset: Int) {
        state.withLock { box in
            let start = (offset + FileFormat.pageSize - 1) & ~(FileFormat.pageSize - 1)
            guard isAnonymous, start < box.fileSizeBytes else { return }
            // Best effort: failure only means the memory stays in use.
            _ = madvise(box.base + start, box.fileSizeBytes - start, MADV_REMOVE)
        }
    }

    private func remap(_ box: inout MapStateBox, toCover bytes: Int) throws {
        let reserved = Self.reservation(for: bytes, minimum: reservationBytesMin)
        let prot = isWritable ? (PROT_READ | PROT_WRITE) : PROT_READ
        guard let p = mmap(nil, reserved, prot, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw AtollError.posix("remapping", path: path, errno: errno)
        }
        box.retire(box.base, box.reservedBytes)
        box.base = p
        box.reservedBytes = reserved
    }

    /// Makes all written data durable (fdatasync).
    func sync() throws {
        observer?.willSync(path: path, fd: fd, range: nil)
        guard fdatasync(fd) == 0 else { throw AtollError.posix("syncing", path: path, errno: errno) }
        observer?.didSync(path: path, fd: fd, range: nil)
    }

    /// Makes one range of the mapping durable (msync MS_SYNC).
    func sync(offset: Int, length: Int) throws {
        let base = self.base
        observer?.willSync(path: path, fd: fd, range: offset..<(offset + length))
        guard msync(base + offset, length, MS_SYNC) == 0 else {
            throw AtollError.posix("syncing", path: path, errno: errno)
        }
        observer?.didSync(path: path, fd: fd, range: offset..<(offset + length))
    }
}

/// Mapping state guarded by MappedFile's mutex. Addresses are kept as integers: the mappings they
/// name live until the MappedFile deinitializes, so any pointer made from them stays valid that long.
private struct MapStateBox {
    private var baseAddress: UInt
    var reservedBytes: Int
    var fileSizeBytes: Int
    private var retiredMappings: [(address: UInt, length: Int)] = []

    init(base: UnsafeMutableRawPointer, reservedBytes: Int, fileSizeBytes: Int) {
        baseAddress = UInt(bitPattern: base)
        self.reservedBytes = reservedBytes
        self.fileSizeBytes = fileSizeBytes
    }

    var base: UnsafeMutableRawPointer {
        get { UnsafeMutableRawPointer(bitPattern: baseAddress).unsafelyUnwrapped }
        set { baseAddress = UInt(bitPattern: newValue) }
    }

    var retired: [(UnsafeMutableRawPointer, Int)] {
        retiredMappings.map { (UnsafeMutableRawPointer(bitPattern: $0.address).unsafelyUnwrapped, $0.length) }
    }

    mutating func retire(_ base: UnsafeMutableRawPointer, _ length: Int) {
        retiredMappings.append((UInt(bitPattern: base), length))
    }
}
