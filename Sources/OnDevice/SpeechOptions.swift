/// How a text is spoken. A scale left nil takes the voice's own default (its `.onnx.json`).
public struct SpeechOptions: Sendable, Equatable {
    /// Variation of the voice's timbre (Piper `noise_scale`; 0 = deterministic).
    public var noiseScale: Float?
    /// Speaking slowness (Piper `length_scale`; 1 = the voice's pace, 2 = half as fast).
    public var lengthScale: Float?
    /// Variation of phoneme durations (Piper `noise_w`; 0 = deterministic).
    public var noiseW: Float?
    /// Speaking rate relative to `lengthScale` (or the voice's pace): 2 is twice as fast, 0.5 half
    /// as fast. From 0.25 to 4, as OpenAI's speech endpoint takes it.
    public var speed: Float = 1
    /// Seeds the variation, so the same text and seed give the same audio.
    public var seed: UInt64

    public init(noiseScale: Float? = nil, lengthScale: Float? = nil, noiseW: Float? = nil, speed: Float = 1, seed: UInt64 = 0) {
        self.speed = speed
        self.noiseScale = noiseScale
        self.lengthScale = lengthScale
        self.noiseW = noiseW
        self.seed = seed
    }
}
