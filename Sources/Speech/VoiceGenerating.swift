/// How much randomness and how slow: the three scales a Piper voice takes at inference.
package struct SynthesisScales: Sendable, Equatable {
    /// Noise in the flow's latent (0 = deterministic timbre).
    package var noiseScale: Float
    /// Duration multiplier (> 1 speaks slower).
    package var lengthScale: Float
    /// Noise in the stochastic duration predictor (0 = deterministic timing).
    package var noiseW: Float

    package init(noiseScale: Float, lengthScale: Float, noiseW: Float) {
        self.noiseScale = noiseScale
        self.lengthScale = lengthScale
        self.noiseW = noiseW
    }
}

/// The network that turns one sentence's phoneme ids into audio (Piper's VITS generator).
/// The synthesizer depends on this role, not on the model type, so the text front end,
/// streaming and PCM conversion are one layer and the generator another.
package protocol VoiceGenerating: Sendable {
    /// Output samples per second.
    var sampleRate: Int { get }
    /// Bytes the loaded network holds.
    var residentBytes: Int { get }
    /// Raw float audio (not normalized) for `phonemeIDs` (`^ _ … $`).
    func generate(phonemeIDs: [Int], scales: SynthesisScales, seed: UInt64, threads: Int) throws(SpeechError) -> [Float]
}
