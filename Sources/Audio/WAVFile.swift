#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads RIFF/WAVE files into mono float audio.
///
/// Layout (Microsoft RIFF/WAVE; little-endian throughout):
/// ```
/// "RIFF" u32 size "WAVE"
/// then chunks until the end: id[4] u32 size, `size` bytes, one pad byte when size is odd
///   "fmt "  u16 formatTag (1 PCM, 3 IEEE float, 0xFFFE extensible), u16 channels,
///           u32 sampleRate, u32 byteRate, u16 blockAlign, u16 bitsPerSample,
///           [u16 cbSize, [u16 validBits, u32 channelMask, 16-byte subformat GUID whose
///           first two bytes are the real format tag]]
///   "data"  interleaved frames of `blockAlign` bytes
///   others  (LIST, fact, ...) skipped
/// ```
/// Samples: PCM 8-bit unsigned, 16/24/32-bit signed; float 32/64-bit. Channels are averaged.
/// A data size of 0xFFFFFFFF (streamed writers) means "to the end of the file"; any other
/// declared size the file cannot hold is a truncation error, not silently shortened audio.
package enum WAVFile {
    /// Reads and decodes the WAV file at `path`.
    package static func read(path: String) throws(AudioError) -> AudioClip {
        try decode(try readBytes(path: path))
    }

    /// Decodes a whole WAV file held in memory.
    package static func decode(_ bytes: [UInt8]) throws(AudioError) -> AudioClip {
        let size = bytes.count
        guard size >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw .notWAV(found: Array(bytes.prefix(12)))
        }
        var format: WAVFormat?
        var offset = 12
        while offset + 8 <= size {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let declared = Int(load32(bytes, offset + 4))
            let body = offset + 8
            if id == "data" {
                guard let format else { throw .missingChunk("fmt ") }
                let length = declared == 0xFFFF_FFFF ? size - body : declared
                guard body + length <= size else {
                    throw .truncated(chunk: "data", offset: body, needed: length, fileSize: size)
                }
                return format.decode(bytes, from: body, count: length)
            }
            guard body + declared <= size else {
                throw .truncated(chunk: id, offset: body, needed: declared, fileSize: size)
            }
            if id == "fmt " { format = try WAVFormat(bytes, at: body, length: declared) }
            offset = body + declared + (declared & 1)
        }
        if offset < size {
            throw .truncated(chunk: "chunk header", offset: offset, needed: 8, fileSize: size)
        }
        throw .missingChunk(format == nil ? "fmt " : "data")
    }

    static func load16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func load32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    static func readBytes(path: String) throws(AudioError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .io(path: path, errno: EISDIR) }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .io(path: path, errno: n < 0 ? errno : EIO) }
            done += n
        }
        return bytes
    }
}

/// `read(2)`, named apart from `WAVFile.read(path:)`.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// The decoded `fmt ` chunk: how one frame of samples is laid out.
struct WAVFormat {
    enum Encoding { case unsignedInt8, signedInt16, signedInt24, signedInt32, float32, float64 }

    let channels: Int
    let sampleRate: Int
    let blockAlign: Int
    let encoding: Encoding

    init(_ b: [UInt8], at offset: Int, length: Int) throws(AudioError) {
        guard length >= 16 else { throw .invalidFormat(detail: "fmt chunk of \(length) bytes (at least 16)") }
        var tag = WAVFile.load16(b, offset)
        let channels = Int(WAVFile.load16(b, offset + 2))
        let rate = Int(WAVFile.load32(b, offset + 4))
        let blockAlign = Int(WAVFile.load16(b, offset + 12))
        let bits = WAVFile.load16(b, offset + 14)
        if tag == 0xFFFE {
            guard length >= 40 else { throw .invalidFormat(detail: "extensible fmt chunk of \(length) bytes (needs 40)") }
            tag = WAVFile.load16(b, offset + 24)
        }
        guard channels > 0 else { throw .invalidFormat(detail: "zero channels") }
        guard rate > 0 else { throw .invalidFormat(detail: "zero sample rate") }
        guard Resampler.rates.contains(rate) else { throw .invalidSampleRate(rate) }
        switch (tag, bits) {
        case (1, 8): encoding = .unsignedInt8
        case (1, 16): encoding = .signedInt16
        case (1, 24): encoding = .signedInt24
        case (1, 32): encoding = .signedInt32
        case (3, 32): encoding = .float32
        case (3, 64): encoding = .float64
        default: throw .unsupportedEncoding(formatTag: tag, bitsPerSample: bits)
        }
        guard blockAlign == channels * Int(bits) / 8 else {
            throw .invalidFormat(detail: "block size \(blockAlign) for \(channels) channels of \(bits) bits")
        }
        self.channels = channels
        self.sampleRate = rate
        self.blockAlign = blockAlign
    }

    /// Frames in `count` bytes at `start`, averaged over channels. A trailing partial frame
    /// (some writers pad the data chunk) is dropped.
    func decode(_ b: [UInt8], from start: Int, count: Int) -> AudioClip {
        let frames = count / blockAlign
        let bytesPerSample = blockAlign / channels
        let scale = 1 / Float(channels)
        var out = [Float](repeating: 0, count: frames)
        b.withUnsafeBytes { raw in
            for f in 0..<frames {
                var sum: Float = 0
                var p = start + f * blockAlign
                for _ in 0..<channels {
                    sum += sample(raw, at: p)
                    p += bytesPerSample
                }
                out[f] = channels == 1 ? sum : sum * scale
            }
        }
        return AudioClip(samples: out, sampleRate: sampleRate)
    }

    @inline(__always) private func sample(_ raw: UnsafeRawBufferPointer, at p: Int) -> Float {
        switch encoding {
        case .unsignedInt8:
            return (Float(raw[p]) - 128) / 128
        case .signedInt16:
            return Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: Int16.self))) / 32768
        case .signedInt24:
            let v = Int32(raw[p]) | Int32(raw[p + 1]) << 8 | Int32(Int8(bitPattern: raw[p + 2])) << 16
            return Float(v) / 8_388_608
        case .signedInt32:
            return Float(Double(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: Int32.self))) / 2_147_483_648)
        case .float32:
            return Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
        case .float64:
            return Float(Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt64.self))))
        }
    }
}
