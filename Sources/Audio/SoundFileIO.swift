import CSndFile
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes in memory behind libsndfile's virtual I/O: the reader's input, or the writer's output.
///
/// A writer's output can be drained while it is being written (`drain`), so an encoder streams.
/// A codec that later seeks back into bytes already drained (to patch a header with the final
/// length) finds them gone: those writes are dropped and counted in `lateWrites`, and what was
/// sent keeps the header the codec wrote first, which every format here allows ("length unknown").
final class SoundFileIO {
    fileprivate(set) var bytes: [UInt8]
    /// Absolute offset of `bytes[0]` (bytes before it were drained).
    fileprivate var base = 0
    fileprivate var position = 0
    /// The absolute end of everything written.
    fileprivate var end: Int
    fileprivate(set) var lateWrites = 0

    init(reading bytes: [UInt8]) {
        self.bytes = bytes
        end = bytes.count
    }

    init() {
        bytes = []
        end = 0
    }

    /// Hands over the bytes written so far and forgets them.
    func drain() -> [UInt8] {
        let out = bytes
        base += bytes.count
        bytes = []
        return out
    }

    /// libsndfile's callbacks; `user` is an unretained `SoundFileIO`.
    fileprivate static var callbacks: SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { user in sf_count_t(soundFileIO(user).end) },
            seek: { offset, whence, user in
                let io = soundFileIO(user)
                let target: Int
                switch whence {
                case SEEK_SET: target = Int(offset)
                case SEEK_CUR: target = io.position + Int(offset)
                case SEEK_END: target = io.end + Int(offset)
                default: return -1
                }
                guard target >= 0 else { return -1 }
                io.position = target
                return sf_count_t(target)
            },
            read: { pointer, count, user in
                let io = soundFileIO(user)
                guard let pointer, count > 0 else { return 0 }
                let start = io.position - io.base
                guard start >= 0, start < io.bytes.count else { return 0 }
                let n = min(Int(count), io.bytes.count - start)
                io.bytes.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
                io.position += n
                return sf_count_t(n)
            },
            write: { pointer, count, user in
                let io = soundFileIO(user)
                guard let pointer, count > 0 else { return 0 }
                let n = Int(count)
                let source = UnsafeRawBufferPointer(start: pointer, count: n)
                var start = io.position - io.base
                var skip = 0
                if start < 0 {  // into drained bytes: dropped (see the type's comment)
                    io.lateWrites += 1
                    skip = min(n, -start)
                    start = 0
                }
                if skip < n {
                    if start > io.bytes.count { io.bytes += [UInt8](repeating: 0, count: start - io.bytes.count) }
                    let overlap = min(n - skip, io.bytes.count - start)
                    for i in 0..<overlap { io.bytes[start + i] = source[skip + i] }
                    if overlap < n - skip { io.bytes += source[(skip + overlap)...] }
                }
                io.position += n
                io.end = max(io.end, io.position)
                return sf_count_t(n)
            },
            tell: { user in sf_count_t(soundFileIO(user).position) })
    }


    /// Opens `self` through libsndfile; the caller closes the handle while `self` is alive.
    func open(mode: Int32, info: inout SF_INFO) -> OpaquePointer? {
        var callbacks = Self.callbacks
        return sf_open_virtual(&callbacks, mode, &info, Unmanaged.passUnretained(self).toOpaque())
    }

    /// libsndfile's message for a failed open (`sf_strerror(nil)` is the last global error).
    static func lastError(_ handle: OpaquePointer?) -> String {
        String(cString: sf_strerror(handle))
    }
}

/// The `SoundFileIO` behind a callback's user pointer (a free function: C callbacks capture nothing).
private func soundFileIO(_ user: UnsafeMutableRawPointer?) -> SoundFileIO {
    Unmanaged<SoundFileIO>.fromOpaque(user!).takeUnretainedValue()
}
