import Audio
import EngineSupport
import Foundation
import Models
import Tokenizers

/// Speech to text with Whisper, reproducing faster-whisper 1.2.1's `WhisperModel.transcribe`:
/// the whole recording's log-mel spectrogram is cut into 30 s windows; each window is encoded
/// and decoded (with temperature fallback), its timestamp tokens split it into segments, and
/// the next window starts where the last complete segment ended.
///
/// Owns the mutable decoding buffers, so one transcriber serves one transcription at a time;
/// the loaded model and tokenizer can be shared by several.
package final class Transcriber {
    package let model: WhisperModel
    package let tokenizer: WhisperTokenizer
    package let features: WhisperFeatureExtractor
    let state: WhisperState
    /// Timings of the last `transcribe` call.
    package internal(set) var metrics = TranscriptionMetrics()
    let clock = ContinuousClock()

    /// Seconds per mel frame and per timestamp token.
    static let secondsPerFrame = 0.01
    static let timePrecision = 0.02

    package init(model: WhisperModel, tokenizer: WhisperTokenizer, threads: Int) {
        self.model = model
        self.tokenizer = tokenizer
        self.features = WhisperFeatureExtractor(melCount: model.config.melCount)
        self.state = WhisperState(config: model.config, maxBeams: 16, threads: max(1, threads))
    }

    /// Loads a faster-whisper model folder (`model.bin`, `config.json`, `tokenizer.json`).
    package convenience init(directory: String, threads: Int) throws(SpeechError) {
        for file in ["model.bin", "config.json", "tokenizer.json"] {
            let path = (directory as NSString).appendingPathComponent(file)
            guard FileManager.default.fileExists(atPath: path) else { throw .missingFile(path: path) }
        }
        let model: WhisperModel
        do { model = try WhisperModel(directory: directory) } catch { throw .model(error) }
        let tokenizer: WhisperTokenizer
        do {
            tokenizer = try WhisperTokenizer(path: (directory as NSString).appendingPathComponent("tokenizer.json"),
                                             vocabularySize: model.config.vocabularySize)
        } catch { throw .tokenizer(error) }
        self.init(model: model, tokenizer: tokenizer, threads: threads)
    }

    package var threads: Int {
        get { state.threads }
        set { state.threads = max(1, newValue) }
    }

    /// Bytes of the decoding state this transcriber holds.
    package var stateBytes: Int { state.allocatedBytes }

    /// Transcribes `clip`, resampled to 16 kHz first when needed.
    package func transcribe(_ clip: AudioClip, options: TranscriptionOptions = TranscriptionOptions(),
                            isCancelled: () -> Bool = { false },
                            onSegment: (TranscriptionSegment) -> Void = { _ in }) throws(SpeechError) -> Transcription {
        let audio: AudioClip
        do { audio = try clip.resampled(to: WhisperFeatureExtractor.sampleRate) } catch { throw .audio(error) }
        return try transcribe(samples: audio.samples, options: options, isCancelled: isCancelled, onSegment: onSegment)
    }

    /// Transcribes 16 kHz mono `samples`. `onSegment` sees each segment as soon as its window
    /// is decoded; `isCancelled` is polled before every window and decoding step.
    package func transcribe(samples: [Float], options: TranscriptionOptions = TranscriptionOptions(),
                            isCancelled: () -> Bool = { false },
                            onSegment: (TranscriptionSegment) -> Void = { _ in }) throws(SpeechError) -> Transcription {
        try options.validate()
        metrics = TranscriptionMetrics()
        let t0 = clock.now
        let mel = features.compute(samples)
        metrics.melSeconds = Self.seconds(clock.now - t0)
        let duration = Double(samples.count) / Double(WhisperFeatureExtractor.sampleRate)
        var language = "en"
        var languageProbability = 1.0
        if let code = options.language, tokenizer.isMultilingual {
            guard tokenizer.languageToken(code) != nil else { throw .unsupportedLanguage(code) }
            language = code
        } else if tokenizer.isMultilingual {
            if isCancelled() { throw .cancelled }
            (language, languageProbability) = detectLanguage(mel, start: 0)
        }
        var segments: [TranscriptionSegment] = []
        try decodeWindows(mel, samples: samples, language: language, options: options, isCancelled: isCancelled) { segment in
            segments.append(segment)
            onSegment(segment)
        }
        return Transcription(language: language, languageProbability: languageProbability, duration: duration, segments: segments)
    }

    /// The most likely language of the 30 s window at mel frame `start`, with its probability:
    /// softmax over the language tokens of the logits after `<|startoftranscript|>`.
    package func detectLanguage(_ mel: LogMelSpectrogram, start: Int) -> (String, Double) {
        encodeWindow(mel, start: start, count: WhisperFeatureExtractor.windowFrames)
        model.step([tokenizer.startOfTranscript], state: state)
        let row = state.logits(beam: 0)
        let ids = model.generation.languageIds.isEmpty ? tokenizer.languages.keys.sorted() : model.generation.languageIds
        let top = ids.map { row[Int($0)] }.max() ?? 0
        let weights = ids.map { Double(expf(row[Int($0)] - top)) }
        let total = weights.reduce(0, +)
        guard let best = weights.indices.max(by: { weights[$0] < weights[$1] }), total > 0 else { return ("en", 0) }
        return (tokenizer.languages[ids[best]] ?? "en", weights[best] / total)
    }

    /// Encodes frames `start ..< start + count` of `mel`, zero-padded to a 30 s window, or to
    /// `count` plus `fittedPadding` seconds when that is given and shorter.
    func encodeWindow(_ mel: LogMelSpectrogram, start: Int, count: Int, fittedPadding: Double? = nil) {
        let t0 = clock.now
        let full = WhisperFeatureExtractor.windowFrames
        let length = fittedPadding.map { min(full, (count + Int(($0 / Self.secondsPerFrame).rounded(.up)) + 1) & ~1) } ?? full
        let window = mel.window(start: start, count: count, length: length)
        window.withUnsafeBufferPointer { model.encode($0, state: state) }
        metrics.encodeSeconds += Self.seconds(clock.now - t0)
        metrics.windows += 1
        metrics.encodedPositions += length / 2
    }

    package static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
