/// Errors of the text front end: a malformed Piper voice config, or espeak-ng refusing a call.
package enum PhonemeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The voice config file could not be read.
    case unreadable(path: String, reason: String)
    /// The voice config is not a JSON object.
    case malformedJSON(reason: String)
    /// A key the voice config must have is absent.
    case missingKey(String)
    /// A key is present with a value of the wrong type or range.
    case invalidValue(key: String, expected: String)
    /// The voice phonemizes with something other than espeak-ng (e.g. `text` voices).
    case unsupportedPhonemeType(String)
    /// `espeak_Initialize` failed (no data directory).
    case espeakUnavailable(code: Int32)
    /// espeak-ng does not know the voice the config names.
    case unknownEspeakVoice(String)

    package var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read voice config \(path): \(reason)"
        case let .malformedJSON(reason): "voice config is not valid JSON: \(reason)"
        case let .missingKey(key): "voice config has no \(key)"
        case let .invalidValue(key, expected): "voice config \(key): expected \(expected)"
        case let .unsupportedPhonemeType(type): "voice phoneme_type \(type) is not supported (espeak only)"
        case let .espeakUnavailable(code): "espeak-ng failed to initialize (code \(code))"
        case let .unknownEspeakVoice(voice): "espeak-ng has no voice \(voice)"
        }
    }
}
