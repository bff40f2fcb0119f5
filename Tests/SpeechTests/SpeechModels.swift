import Foundation
import Models
import Speech
import TestSupport
import Tokenizers

/// Finds and caches the speech models the tests use, under `TestModels.searchRoots`
/// (`$ONDEVICE_TEST_MODELS`, then the store root `$ONDEVICE_HOME`).
enum SpeechModels {
    /// The folder holding `model.bin` whose path contains `marker` (e.g. "faster-whisper-tiny.en").
    static func whisperDirectory(_ marker: String) -> String? {
        for root in TestModels.searchRoots {
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = walker.nextObject() as? String {
                if relative.hasSuffix("/model.bin") && relative.contains(marker + "/") {
                    return (root as NSString).appendingPathComponent((relative as NSString).deletingLastPathComponent)
                }
            }
        }
        return nil
    }

    static let tinyEnglish = whisperDirectory("faster-whisper-tiny.en")
    static let base = whisperDirectory("faster-whisper-base")
    static let silero = TestModels.path("silero_vad_16k.safetensors")

    /// Loaded models, shared by the tests of one process (loading maps files; nothing is copied).
    nonisolated(unsafe) private static var cache: [String: (WhisperModel, WhisperTokenizer)] = [:]
    private static let lock = NSLock()

    static func transcriber(_ directory: String, threads: Int = 2) throws -> Transcriber {
        lock.lock()
        defer { lock.unlock() }
        if let (model, tokenizer) = cache[directory] { return Transcriber(model: model, tokenizer: tokenizer, threads: threads) }
        let t = try Transcriber(directory: directory, threads: threads)
        cache[directory] = (t.model, t.tokenizer)
        return t
    }
}
