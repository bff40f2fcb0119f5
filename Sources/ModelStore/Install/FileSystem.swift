import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the store needs, with errno mapped to `StoreError.io`.
package enum FileSystem {
    /// `mkdir -p`.
    package static func makeDirectories(_ path: String) throws(StoreError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST { throw .io(path: current, errno: errno) }
        }
        guard isDirectory(path) else { throw .io(path: path, errno: ENOTDIR) }
    }

    /// Removes a file or a whole tree; a missing path is not an error.
    package static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    package static func rename(_ from: String, to: String) throws(StoreError) {
        guard POSIX.rename(from, to) == 0 else { throw .io(path: to, errno: errno) }
    }

    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Size of a regular file (following links), nil when absent.
    package static func fileSize(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(st.st_size)
    }

    package static func truncate(_ path: String, to size: Int64) throws(StoreError) {
        guard POSIX.truncate(path, off_t(size)) == 0 else { throw .io(path: path, errno: errno) }
    }

    package static func readData(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Writes via a temporary file and rename, so readers see the old or the new content.
    package static func writeAtomically(_ data: Data, to path: String) throws(StoreError) {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { throw .io(path: temporary, errno: errno) }
        try rename(temporary, to: path)
    }

    /// Reads `path` from `offset` to its end in 1 MiB blocks, passing each to `body`.
    package static func read(_ path: String, from offset: Int64 = 0, count: Int64? = nil,
                             _ body: (UnsafeRawBufferPointer) throws(StoreError) -> Void) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, errno: errno) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = offset
        var remaining = count ?? Int64.max
        while remaining > 0 {
            let want = Int(min(Int64(buffer.count), remaining))
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(position)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, errno: errno)
            }
            if got == 0 { break }
            try buffer.withBytes { (raw: UnsafeRawBufferPointer) throws(StoreError) in try body(UnsafeRawBufferPointer(rebasing: raw[0..<got])) }
            position += Int64(got)
            remaining -= Int64(got)
        }
    }

    /// SHA-256 of a whole file, lowercase hex.
    package static func sha256(of path: String) throws(StoreError) -> String {
        var hasher = SHA256()
        try read(path) { hasher.update($0) }
        return hasher.finalize().hexString
    }

    /// Directory entries (names only), sorted; empty when absent.
    package static func children(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// Free bytes on the file system holding a path. A protocol so tests can fake a full disk.
package protocol FreeSpaceProbing: Sendable {
    func freeBytes(at path: String) -> Int64?
}

/// The real probe: `statvfs` blocks available to unprivileged users times the fragment size.
package struct StatvfsFreeSpace: FreeSpaceProbing {
    package init() {}
    package func freeBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
