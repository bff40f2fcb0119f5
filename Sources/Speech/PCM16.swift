/// Float audio to 16-bit PCM exactly as piper-tts 1.8.0 writes it (`normalize_audio=True`):
/// divide by the peak absolute sample, clip to [-1, 1], multiply by 32767, truncate toward
/// zero. Each sentence is normalized on its own, since Piper converts chunk by chunk.
package enum PCM16 {
    /// Below this peak the chunk is silence and becomes zeros (no division by ~0).
    static let silentPeak: Float = 1e-8

    package static func convert(_ samples: [Float]) -> [Int16] {
        var peak: Float = 0
        for s in samples { peak = max(peak, abs(s)) }
        guard peak >= silentPeak else { return [Int16](repeating: 0, count: samples.count) }
        return samples.map { s in
            let v = min(1, max(-1, s / peak)) * 32767
            return Int16(v.isNaN ? 0 : v.rounded(.towardZero))
        }
    }

    /// PCM16 back to floats that `WAVFile.encode(_:format: .pcm16)` writes unchanged: v / 32768 is
    /// exact in Float, and the writer's `(x * 32768).rounded()` gives v back.
    package static func floats(_ pcm: [Int16]) -> [Float] { pcm.map { Float($0) / 32768 } }
}
