/// Mono audio as floats in [-1, 1] at a known sample rate: what every speech model here takes.
package struct AudioClip: Sendable, Equatable {
    /// Samples, one per tick of `sampleRate`.
    package var samples: [Float]
    /// Samples per second.
    package var sampleRate: Int

    package init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Length in seconds.
    package var duration: Double { sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0 }

    /// The same audio at `rate` samples per second (band-limited resampling; a copy when equal).
    package func resampled(to rate: Int) throws(AudioError) -> AudioClip {
        if rate == sampleRate { return self }
        var resampler = try Resampler(from: sampleRate, to: rate)
        return AudioClip(samples: resampler.resampleAll(samples), sampleRate: rate)
    }
}
