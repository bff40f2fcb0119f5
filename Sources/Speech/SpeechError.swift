import Audio
import Models
import Phonemes
import Tokenizers

/// Errors of the speech engine (transcription, voice activity detection, synthesis).
///
/// Kept apart from `EngineError` (the language-model engine's) so the two halves of the engine
/// evolve in separate files; both follow the same shape.
package enum SpeechError: Error, Sendable, Equatable {
    /// The audio could not be read or converted.
    case audio(AudioError)
    /// A model file could not be loaded.
    case model(ModelError)
    /// The tokenizer could not be built from `tokenizer.json`.
    case tokenizer(TokenizerError)
    /// A file the model folder must contain is absent.
    case missingFile(path: String)
    /// An option outside its range (`name`, the value given, what is allowed).
    case invalidOption(name: String, value: String, expected: String)
    /// A language code the model has no token for.
    case unsupportedLanguage(String)
    /// The text front end failed: a malformed voice config or an espeak-ng error.
    case phonemes(PhonemeError)
    /// The caller cancelled the work.
    case cancelled
}

extension SpeechError: CustomStringConvertible {
    /// One line for logs and the CLI.
    package var description: String {
        switch self {
        case .audio(let e): e.description
        case .model(let e): e.description
        case .tokenizer(let e): "tokenizer: \(e)"
        case .missingFile(let path): "missing model file \(path)"
        case let .invalidOption(name, value, expected): "\(name) \(value) is invalid: expected \(expected)"
        case .unsupportedLanguage(let code): "the model has no language '\(code)'"
        case .phonemes(let e): e.description
        case .cancelled: "cancelled"
        }
    }
}
