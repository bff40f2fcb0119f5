#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors of the tensor layer.
package enum TensorError: Error, Sendable, Equatable {
    case cannotOpen(path: String, errno: Int32)
    case cannotMap(path: String, errno: Int32)
    case notARegularFile(path: String)
}

/// Owner of a read-only memory mapping of a whole file. Unmaps in `deinit`.
///
/// `~Copyable` so exactly one value owns the mapping; share it through `MappedRegion`.
package struct FileMapping: ~Copyable {
    package let base: UnsafeRawPointer?
    package let count: Int

    package init(path: String) throws(TensorError) {
        let (base, count) = try Self.map(path: path)
        self.base = base
        self.count = count
    }

    /// No mapping (an empty file's state); for regions that hold bytes of their own.
    init() {
        base = nil
        count = 0
    }

    private static func map(path: String) throws(TensorError) -> (UnsafeRawPointer?, Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .cannotOpen(path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile(path: path) }
        let size = Int(st.st_size)
        if size == 0 { return (nil, 0) }
        let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { throw .cannotMap(path: path, errno: errno) }
        return (UnsafeRawPointer(p), size)
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) }
    }
}

/// A shared, immutable memory-mapped file. Tensors point into it and keep it alive.
///
/// `@unchecked Sendable`: the mapping is read-only (`PROT_READ`) and never changes after init,
/// so concurrent reads from any thread are safe. A region can also hold a heap copy of bytes
/// that never were a file (`init(copying:name:)`): parsers then read them exactly as they read
/// a mapping, which is what the fuzz targets and in-memory tests need.
package final class MappedRegion: @unchecked Sendable {
    private let mapping: FileMapping
    private let copy: UnsafeMutableRawBufferPointer?
    /// Path the region was mapped from (the name given for a copy).
    package let path: String

    package init(path: String) throws(TensorError) {
        self.mapping = try FileMapping(path: path)
        self.copy = nil
        self.path = path
    }

    /// A region over a private heap copy of `bytes`; `name` stands in for the path in errors.
    package init(copying bytes: UnsafeRawBufferPointer, name: String) {
        self.mapping = FileMapping()
        if bytes.isEmpty {
            self.copy = nil
        } else {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 64)
            buffer.copyMemory(from: bytes)
            self.copy = buffer
        }
        self.path = name
    }

    deinit { copy?.deallocate() }

    /// First byte of the file (nil for an empty file).
    package var base: UnsafeRawPointer? { copy.map { UnsafeRawPointer($0.baseAddress!) } ?? mapping.base }
    /// File size in bytes.
    package var count: Int { copy?.count ?? mapping.count }

    /// The file's bytes as a buffer.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Drops the whole pages inside [pointer, pointer + byteCount) from this process's resident
    /// memory (`MADV_DONTNEED`; the mapping is private and read-only, so a later read faults the
    /// file's bytes back in, unchanged). For weights that were copied into another form at load.
    /// Returns the bytes released.
    @discardableResult
    package func evict(_ pointer: UnsafeRawPointer, byteCount: Int) -> Int {
        guard let base = mapping.base, pointer >= base, pointer + byteCount <= base + mapping.count else { return 0 }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: pointer) + page - 1) / page * page
        let end = (Int(bitPattern: pointer) + byteCount) / page * page
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return 0 }
        return madvise(address, end - start, MADV_DONTNEED) == 0 ? end - start : 0
    }
}
