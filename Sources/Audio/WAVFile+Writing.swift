#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WAVFile {
    /// Sample encodings the writer produces.
    package enum SampleFormat: Sendable {
        /// 16-bit signed PCM, rounded and clipped (format tag 1).
        case pcm16
        /// IEEE float32 (format tag 3).
        case float32
    }

    /// A mono WAV file holding `clip`: `RIFF` header, a 16-byte `fmt ` chunk, then `data`.
    package static func encode(_ clip: AudioClip, format: SampleFormat = .pcm16) -> [UInt8] {
        let (tag, bits): (UInt16, UInt16) = format == .pcm16 ? (1, 16) : (3, 32)
        let bytesPerSample = Int(bits) / 8
        let dataBytes = clip.samples.count * bytesPerSample
        var out: [UInt8] = []
        out.reserveCapacity(44 + dataBytes)
        func put16(_ v: UInt16) { out.append(UInt8(v & 0xFF)); out.append(UInt8(v >> 8)) }
        func put32(_ v: UInt32) { for s in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        out.append(contentsOf: "RIFF".utf8)
        put32(UInt32(36 + dataBytes))
        out.append(contentsOf: "WAVEfmt ".utf8)
        put32(16)
        put16(tag)
        put16(1)
        put32(UInt32(clip.sampleRate))
        put32(UInt32(clip.sampleRate * bytesPerSample))
        put16(UInt16(bytesPerSample))
        put16(bits)
        out.append(contentsOf: "data".utf8)
        put32(UInt32(dataBytes))
        for s in clip.samples {
            switch format {
            case .pcm16:
                let v = Int16(max(-32768, min(32767, (s * 32768).rounded())))
                put16(UInt16(bitPattern: v))
            case .float32:
                put32(s.bitPattern)
            }
        }
        return out
    }

    /// Writes `clip` to `path` (created or replaced).
    package static func write(_ clip: AudioClip, to path: String, format: SampleFormat = .pcm16) throws(AudioError) {
        let bytes = encode(clip, format: format)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, errno: errno) }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .io(path: path, errno: errno) }
            done += n
        }
    }
}

/// `write(2)`, named apart from `WAVFile.write(_:to:format:)`.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
