/// Options of one synthesis. A scale left nil takes the voice's default from its config.
package struct SynthesisOptions: Sendable, Equatable {
    package var noiseScale: Float?
    package var lengthScale: Float?
    package var noiseW: Float?
    /// Speaking rate: the length scale (given or the voice's) is divided by it, so 2 speaks twice
    /// as fast and 0.5 half as fast (OpenAI's `speed`). Must be positive.
    package var speed: Float = 1
    /// Seeds the noise; sentence `i` of a text uses `seed &+ i`, so a text is reproducible.
    package var seed: UInt64
    /// Kernel threads for the generator.
    package var threads: Int

    package init(noiseScale: Float? = nil, lengthScale: Float? = nil, noiseW: Float? = nil, seed: UInt64 = 0, threads: Int = 1) {
        self.noiseScale = noiseScale
        self.lengthScale = lengthScale
        self.noiseW = noiseW
        self.seed = seed
        self.threads = max(1, threads)
    }
}

/// One sentence of synthesized speech.
package struct SpeechChunk: Sendable, Equatable {
    /// Position of the sentence in the text (0-based).
    package var index: Int
    /// The sentence's source text.
    package var text: String
    /// Raw generator output, as floats (not normalized).
    package var samples: [Float]
    package var sampleRate: Int
    /// Seconds the generator took for this sentence.
    package var computeSeconds: Double

    package init(index: Int, text: String, samples: [Float], sampleRate: Int, computeSeconds: Double) {
        self.index = index
        self.text = text
        self.samples = samples
        self.sampleRate = sampleRate
        self.computeSeconds = computeSeconds
    }

    /// Length in seconds.
    package var audioSeconds: Double { Double(samples.count) / Double(max(1, sampleRate)) }

    /// The chunk as Piper writes it: 16-bit PCM (see `PCM16.convert`).
    package var pcm16: [Int16] { PCM16.convert(samples) }
}

/// Totals of one synthesis.
package struct SynthesisMetrics: Sendable, Equatable {
    package var sentences = 0
    package var phonemeIDs = 0
    package var audioSeconds = 0.0
    package var computeSeconds = 0.0
    /// Seconds from the start until the first chunk was ready.
    package var firstChunkSeconds = 0.0

    package init() {}

    /// Compute seconds per second of audio (Piper's definition; < 1 is faster than real time).
    package var realTimeFactor: Double { audioSeconds > 0 ? computeSeconds / audioSeconds : 0 }
}

/// What a synthesis stream yields: a chunk per sentence, then the totals once.
package enum SynthesisEvent: Sendable, Equatable {
    case chunk(SpeechChunk)
    case finished(SynthesisMetrics)
}
