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
        let bytesPerSample = format == .pcm16 ? 2 : 4
        let dataBytes = clip.samples.count * bytesPerSample
        var out = header(sampleRate: clip.sampleRate, format: format, riffSize: UInt32(36 + dataBytes), dataSize: UInt32(dataBytes))
        out.reserveCapacity(44 + dataBytes)
        switch format {
        case .pcm16: appendPCM16(clip.samples, to: &out)
        case .float32: for s in clip.samples { appendLittleEndian(s.bitPattern, to: &out) }
        }
        return out
    }

    /// The header of a 16-bit mono WAV whose length is not known yet (a stream): both sizes are
    /// 0xFFFFFFFF, "to the end of the file", which `decode` and libsndfile accept.
    package static func streamingHeader(sampleRate: Int) -> [UInt8] {
        header(sampleRate: sampleRate, format: .pcm16, riffSize: 0xFFFF_FFFF, dataSize: 0xFFFF_FFFF)
    }

    /// Appends `samples` as 16-bit signed little-endian PCM, rounded and clipped.
    package static func appendPCM16(_ samples: [Float], to out: inout [UInt8]) {
        for s in samples {
            let v = UInt16(bitPattern: pcm16(s))
            out.append(UInt8(v & 0xFF))
            out.append(UInt8(v >> 8))
        }
    }

    /// One sample as 16-bit PCM: scaled by 32768, rounded, clipped.
    package static func pcm16(_ sample: Float) -> Int16 {
        Int16(max(-32768, min(32767, (sample * 32768).rounded())))
    }

    private static func header(sampleRate: Int, format: SampleFormat, riffSize: UInt32, dataSize: UInt32) -> [UInt8] {
        let (tag, bits): (UInt16, UInt16) = format == .pcm16 ? (1, 16) : (3, 32)
        let bytesPerSample = Int(bits) / 8
        var out: [UInt8] = []
        out.append(contentsOf: "RIFF".utf8)
        appendLittleEndian(riffSize, to: &out)
        out.append(contentsOf: "WAVEfmt ".utf8)
        appendLittleEndian(UInt32(16), to: &out)
        appendLittleEndian(tag, to: &out)
        appendLittleEndian(UInt16(1), to: &out)
        appendLittleEndian(UInt32(sampleRate), to: &out)
        appendLittleEndian(UInt32(sampleRate * bytesPerSample), to: &out)
        appendLittleEndian(UInt16(bytesPerSample), to: &out)
        appendLittleEndian(bits, to: &out)
        out.append(contentsOf: "data".utf8)
        appendLittleEndian(dataSize, to: &out)
        return out
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        for i in 0..<(T.bitWidth / 8) { out.append(UInt8(truncatingIfNeeded: value >> (i * 8))) }
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
