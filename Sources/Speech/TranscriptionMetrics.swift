/// Where a transcription's time went, for benchmarks and the CLI's `--json`.
package struct TranscriptionMetrics: Sendable, Equatable {
    /// Seconds computing the log-mel spectrogram.
    package var melSeconds = 0.0
    /// Seconds in the encoder, and how many 30 s windows it ran.
    package var encodeSeconds = 0.0
    package var windows = 0
    /// Seconds decoding (all temperatures and beams), and tokens in the accepted results.
    package var decodeSeconds = 0.0
    package var tokens = 0

    package init() {}

    package var totalSeconds: Double { melSeconds + encodeSeconds + decodeSeconds }
}
