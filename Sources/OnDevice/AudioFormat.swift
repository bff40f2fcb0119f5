import Audio

/// The file formats speech is written in. Reading takes these and Ogg Vorbis, recognized from
/// the bytes (`transcribe(file:)`, `detectSpeech(file:)`).
public enum AudioFormat: String, Sendable, CaseIterable {
    /// 16-bit PCM WAV at the voice's rate.
    case wav
    /// Raw 16-bit signed little-endian mono samples at 24 kHz, no header (OpenAI's `pcm`).
    case pcm
    /// FLAC, lossless, at the voice's rate.
    case flac
    /// MP3 (LAME) at the voice's rate.
    case mp3
    /// Opus in an Ogg container at 48 kHz.
    case opus

    /// The format a file name's extension names (`.wav`, `.flac`, `.mp3`, `.opus`, `.ogg`,
    /// `.pcm`, `.raw`), or nil.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "pcm", "raw": self = .pcm
        case "flac": self = .flac
        case "mp3": self = .mp3
        case "opus", "ogg", "oga": self = .opus
        default: return nil
        }
    }

    /// The HTTP media type of the encoded bytes.
    public var mediaType: String { encoding.mediaType }

    var encoding: AudioEncoding {
        switch self {
        case .wav: .wav
        case .pcm: .pcm
        case .flac: .flac
        case .mp3: .mp3
        case .opus: .opus
        }
    }
}
