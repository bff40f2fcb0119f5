import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The index's append-only journal: every change is a checksummed record appended and synced
/// before the call returns, so a process killed at any instant leaves a prefix of whole records
/// plus at most one torn record at the end, which the next writer cuts off.
///
/// Layout (little-endian):
/// ```
/// header   16 bytes   "ODIXJRNL" | u32 version (1) | u32 CRC-32C of the 12 bytes before
/// record*  9 + n      u32 n (payload bytes) | u32 CRC-32C of (type byte, payload) | u8 type | payload
/// ```
/// Payloads are described in `JournalRecord`. Compaction writes the live records to
/// `<journal>.compact`, syncs it, renames it over the journal and syncs the directory, so a
/// crash leaves either the old journal or the new one, never a mixture.
package final class IndexJournal {
    static let magic = Array("ODIXJRNL".utf8)
    static let version: UInt32 = 1
    package static let headerSize = 16
    static let recordHeaderSize = 9
    static let maxPayload = 1 << 30

    /// What opening found.
    struct Replay {
        var records: [JournalRecord] = []
        /// Bytes of whole, valid records and header.
        var validBytes = 0
        /// Bytes of a torn final record (cut off by a writer, skipped by a reader).
        var tornBytes = 0
    }

    let path: String
    let readOnly: Bool
    private var fd: Int32
    /// End of the valid data: where the next record goes.
    private(set) var size: Int

    private init(path: String, readOnly: Bool, fd: Int32, size: Int) {
        self.path = path
        self.readOnly = readOnly
        self.fd = fd
        self.size = size
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Opens (a writer creates) the journal at `path` and replays it. A writer cuts a torn final
    /// record off and removes a compaction file a crash left behind; a reader changes nothing.
    static func open(path: String, readOnly: Bool) throws(RetrievalError) -> (IndexJournal, Replay) {
        if readOnly && !FileManager.default.fileExists(atPath: path) {
            return (IndexJournal(path: path, readOnly: true, fd: -1, size: 0), Replay())
        }
        if !readOnly { unlink(path + ".compact") }
        let fd = POSIX.open(path, readOnly ? (O_RDONLY | O_CLOEXEC) : (O_RDWR | O_CREAT | O_CLOEXEC), 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        let journal = IndexJournal(path: path, readOnly: readOnly, fd: fd, size: 0)
        let bytes = try journal.readAll()
        if bytes.count < headerSize {
            // Empty, or a header torn while the journal was being created: nothing was ever
            // committed to it, so a writer starts it afresh.
            guard !readOnly else { return (journal, Replay()) }
            guard ftruncate(fd, 0) == 0 else { throw .io(path: path, operation: "truncate", errno: errno) }
            try journal.write(header(), at: 0)
            try journal.sync()
            try syncDirectory(of: path)
            journal.size = headerSize
            return (journal, Replay(records: [], validBytes: headerSize, tornBytes: 0))
        }
        let parsed = bytes.withUnsafeBytes { raw in Result { () throws(RetrievalError) in try parse(raw, path: path) } }
        let replay = try parsed.get()
        journal.size = replay.validBytes
        if replay.tornBytes > 0 && !readOnly {
            guard ftruncate(fd, off_t(replay.validBytes)) == 0 else { throw .io(path: path, operation: "truncate", errno: errno) }
            try journal.sync()
        }
        return (journal, replay)
    }

    static func header() -> [UInt8] {
        var w = ByteWriter(capacity: headerSize)
        w.raw(magic)
        w.u32(version)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// The framed bytes of `record`.
    static func frame(_ record: JournalRecord) -> [UInt8] {
        let payload = record.payload()
        var body = [record.typeByte]
        body.append(contentsOf: payload)
        var w = ByteWriter(capacity: payload.count + recordHeaderSize)
        w.u32(UInt32(payload.count))
        w.u32(CRC32C.checksum(body))
        w.raw(body)
        return w.bytes
    }

    /// Appends `records` with one write and syncs them to disk.
    func append(_ records: [JournalRecord]) throws(RetrievalError) {
        precondition(!readOnly, "append on a read-only journal")
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        for r in records { bytes.append(contentsOf: Self.frame(r)) }
        do {
            try write(bytes, at: size)
            try sync()
        } catch {
            // Leave no partial record behind this writer (ENOSPC and the like).
            _ = ftruncate(fd, off_t(size))
            throw error
        }
        size += bytes.count
    }

    /// Replaces the journal with one holding only `records`, atomically.
    func compact(_ records: [JournalRecord]) throws(RetrievalError) {
        precondition(!readOnly, "compact on a read-only journal")
        let temporary = path + ".compact"
        let tfd = POSIX.open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard tfd >= 0 else { throw .io(path: temporary, operation: "open", errno: errno) }
        var bytes = Self.header()
        for r in records { bytes.append(contentsOf: Self.frame(r)) }
        let staged = IndexJournal(path: temporary, readOnly: false, fd: tfd, size: 0)
        do {
            try staged.write(bytes, at: 0)
            try staged.sync()
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(path: path, operation: "rename", errno: code)
        }
        try Self.syncDirectory(of: path)
        close(fd)
        fd = staged.fd
        staged.fd = -1
        size = bytes.count
    }

    private func readAll() throws(RetrievalError) -> [UInt8] {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .io(path: path, operation: "read", errno: errno) }
            if n == 0 { break }  // shrank while we read: keep what is there
            done += n
        }
        return Array(bytes.prefix(done))
    }

    private func write(_ bytes: [UInt8], at offset: Int) throws(RetrievalError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .io(path: path, operation: "write", errno: n < 0 ? errno : EIO) }
            done += n
        }
    }

    private func sync() throws(RetrievalError) {
        guard POSIX.syncData(fd) == 0 else { throw .io(path: path, operation: "fdatasync", errno: errno) }
    }

    /// Makes a create or rename in the journal's directory durable.
    static func syncDirectory(of path: String) throws(RetrievalError) {
        let directory = (path as NSString).deletingLastPathComponent
        let dfd = POSIX.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw .io(path: directory, operation: "open directory", errno: errno) }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else { throw .io(path: directory, operation: "fsync directory", errno: errno) }
    }
}
