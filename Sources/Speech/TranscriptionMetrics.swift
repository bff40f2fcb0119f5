/// Where a transcription's time went, for benchmarks and the CLI's `--json`.
package struct TranscriptionMetrics: Sendable, Equatable {
    /// Seconds computing the log-mel spectrogram.
    package var melSeconds = 0.0
    /// Seconds in the encoder, how many windows it ran, and their encoder positions in all
    /// (1500 for each 30 s window; fewer with a fitted window).
    package var encodeSeconds = 0.0
    package var windows = 0
    package var encodedPositions = 0
    /// Seconds decoding (all temperatures and beams), and tokens in the accepted results.
    package var decodeSeconds = 0.0
    package var tokens = 0

    package init() {}

    package var totalSeconds: Double { melSeconds + encodeSeconds + decodeSeconds }
}
