/// How `Transcriber` decodes; defaults are faster-whisper 1.2.1's `transcribe` defaults.
package struct TranscriptionOptions: Sendable, Equatable {
    package enum Task: String, Sendable { case transcribe, translate }

    /// Spoken language code ("en"); nil detects it from the first 30 s (multilingual models).
    package var language: String?
    package var task: Task = .transcribe
    /// Beam width at temperature 0 (1 = greedy).
    package var beamSize = 5
    /// Candidates sampled at each temperature above 0; the best by log-probability is kept.
    package var bestOf = 5
    /// Beam search keeps going until round(beamSize · patience) hypotheses have finished.
    package var patience: Float = 1
    /// Hypothesis scores are divided by length^lengthPenalty.
    package var lengthPenalty: Float = 1
    /// Tried in order while a window's result fails the thresholds below.
    package var temperatures: [Float] = [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    /// Text compressing better than this (gzip ratio) is treated as a repetition loop.
    package var compressionRatioThreshold: Double? = 2.4
    /// Results whose average token log-probability is below this are retried.
    package var logProbThreshold: Double? = -1
    /// A window whose no-speech probability exceeds this (and whose log-probability is below
    /// `logProbThreshold`) is skipped as silence.
    package var noSpeechThreshold: Double? = 0.6
    /// Prompt each window with the text already transcribed.
    package var conditionOnPreviousText = true
    /// Stop conditioning after a window decoded above this temperature.
    package var promptResetOnTemperature: Float = 0.5
    /// Text given as previous context for the first window.
    package var initialPrompt: String?
    /// Forbid a blank or end-of-text as the first sampled token.
    package var suppressBlank = true
    /// Tokens never generated; nil means the model's non-speech symbols (faster-whisper's `[-1]`).
    package var suppressTokens: [Int32]?
    /// Decode text only, without timestamp tokens (one segment per window).
    package var withoutTimestamps = false
    /// The first timestamp of a window may not be later than this many seconds.
    package var maxInitialTimestamp: Double = 1.0
    /// Most tokens generated per window (at most 224, half the decoder context).
    package var maxNewTokens: Int?
    /// Re-detect the language in every window (multilingual models).
    package var multilingual = false
    /// Seed of the sampler used above temperature 0.
    package var seed: UInt64 = 0
    /// A window whose samples all stay below this amplitude is skipped without decoding.
    /// Not in faster-whisper, which on digital silence writes Whisper's classic hallucination
    /// ("You"); nil turns the check off. At 1e-3 (−60 dBFS) any audible sound is decoded.
    package var silenceAmplitude: Float? = 1e-3
    /// Encode a window that is shorter than 30 s when its audio is (whisper.cpp's `audio_ctx`):
    /// the audio's frames plus this many seconds, rounded up to an even frame count. The encoder's
    /// work falls with the window (a 4 s clip: an eighth of the positions, and attention over
    /// them). nil, the default, always encodes the 30 s window the model was trained on, as
    /// faster-whisper does; a fitted window can change a transcript (see the README's figures).
    package var fittedWindowPadding: Double?
    /// Time every word (faster-whisper's `word_timestamps`): after a window is decoded, one more
    /// decoder pass over its text reads the cross-attention of the alignment heads. Off by
    /// default; off, nothing of it runs.
    package var wordTimestamps = false

    package init(language: String? = nil, beamSize: Int = 5) {
        self.language = language
        self.beamSize = beamSize
    }

    /// Checks ranges; the transcriber calls this before any work.
    package func validate() throws(SpeechError) {
        guard (1...16).contains(beamSize) else { throw .invalidOption(name: "beam size", value: "\(beamSize)", expected: "1 to 16") }
        guard (1...16).contains(bestOf) else { throw .invalidOption(name: "best of", value: "\(bestOf)", expected: "1 to 16") }
        guard patience > 0 else { throw .invalidOption(name: "patience", value: "\(patience)", expected: "> 0") }
        guard !temperatures.isEmpty, temperatures.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
            throw .invalidOption(name: "temperatures", value: "\(temperatures)", expected: "non-negative numbers")
        }
        if let p = fittedWindowPadding, !(p >= 0 && p <= 30) {
            throw .invalidOption(name: "fitted window padding", value: "\(p)", expected: "0 to 30 seconds")
        }
        if let m = maxNewTokens, !(1...224).contains(m) {
            throw .invalidOption(name: "max new tokens", value: "\(m)", expected: "1 to 224")
        }
    }
}
