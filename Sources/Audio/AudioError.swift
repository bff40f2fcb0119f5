/// Why audio could not be read or converted. Every case says what was wrong and where.
///
/// Offsets are absolute byte offsets in the file.
package enum AudioError: Error, Sendable, Equatable {
    /// Opening or reading the file failed (`errno` from the system).
    case io(path: String, errno: Int32)
    /// The file does not start with `RIFF....WAVE` (the first 12 bytes found).
    case notWAV(found: [UInt8])
    /// A chunk header or body needs `needed` bytes at `offset`, but the file ends first.
    case truncated(chunk: String, offset: Int, needed: Int, fileSize: Int)
    /// A chunk the format requires is absent (`fmt ` or `data`).
    case missingChunk(String)
    /// A `fmt ` chunk that is too short or self-contradictory (zero channels, zero rate,
    /// block size that disagrees with channels × bits).
    case invalidFormat(detail: String)
    /// A sample encoding the reader does not decode (format tag and bits per sample).
    case unsupportedEncoding(formatTag: UInt16, bitsPerSample: UInt16)
    /// A sample rate outside `Resampler.rates` (1 kHz to 1 MHz).
    case invalidSampleRate(Int)
    /// Not audio any reader here decodes, or a compressed stream that breaks off (libsndfile's
    /// words in `detail`).
    case undecodable(detail: String)
    /// The audio runs longer than the caller's bound (`limit` seconds).
    case tooLong(seconds: Double, limit: Double)
    /// The encoder refused the format or the audio (libsndfile's words in `detail`).
    case encoding(format: String, detail: String)
}

extension AudioError: CustomStringConvertible {
    /// One line for logs and the CLI.
    package var description: String {
        switch self {
        case let .io(path, errno): "cannot read '\(path)' (errno \(errno))"
        case .notWAV(let found): "not a WAV file (first bytes \(found))"
        case let .truncated(chunk, offset, needed, fileSize):
            "truncated WAV: chunk '\(chunk)' needs \(needed) bytes at offset \(offset), file has \(fileSize)"
        case .missingChunk(let id): "WAV file has no '\(id)' chunk"
        case .invalidFormat(let detail): "invalid WAV format chunk: \(detail)"
        case let .unsupportedEncoding(tag, bits):
            "unsupported WAV sample encoding: format tag \(tag) with \(bits) bits per sample"
        case .invalidSampleRate(let rate): "invalid sample rate \(rate)"
        case .undecodable(let detail): "cannot decode the audio: \(detail)"
        case let .tooLong(seconds, limit):
            "the audio is longer than the \(Int(limit)) s this reader accepts (at least \(Int(seconds)) s)"
        case let .encoding(format, detail): "cannot encode \(format): \(detail)"
        }
    }
}
