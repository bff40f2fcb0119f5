import Foundation
import Formats

/// The three knobs of Piper/VITS synthesis.
package struct PiperScales: Sendable, Equatable {
    /// Scale of the noise added to the prior (variation in voice quality).
    package var noiseScale: Float
    /// Duration multiplier: above 1 speaks slower.
    package var lengthScale: Float
    /// Scale of the duration predictor's noise (variation in rhythm).
    package var noiseW: Float

    package init(noiseScale: Float = 0.667, lengthScale: Float = 1, noiseW: Float = 0.8) {
        self.noiseScale = noiseScale
        self.lengthScale = lengthScale
        self.noiseW = noiseW
    }
}

/// What one synthesis produced: the raw waveform (no normalization or clipping beyond the
/// model's own tanh) and how many 256-sample frames each phoneme id was given.
package struct PiperAudio: Sendable {
    package var samples: [Float]
    package var framesPerID: [Int]

    package init(samples: [Float], framesPerID: [Int]) {
        self.samples = samples
        self.framesPerID = framesPerID
    }
}

/// A Piper voice (a VITS generator exported to ONNX) run natively: weights are read from the
/// ONNX file by name and computed by our own kernels; the ONNX graph is never executed.
///
/// Inference, after jaywalnut310/vits `SynthesizerTrn.infer` (as rhasspy/piper exports it):
/// text encoder → stochastic duration predictor (reverse, noise · noiseW) → ceil(exp(logw) ·
/// lengthScale) frames per id → prior mean + noise · exp(logs) · noiseScale per frame → flow
/// (reverse) → HiFi-GAN decoder.
package final class PiperVoiceModel: Sendable {
    let encoder: VITSTextEncoder
    let durations: VITSDurationPredictor
    let flow: VITSFlow
    let decoder: VITSDecoder
    /// Output samples per latent frame (the product of the upsampling strides).
    package let hopLength: Int

    /// Piper ONNX files do not record their sample rate (the voice's `.onnx.json` does);
    /// every Piper quality but x_low is 22,050 Hz, so that is the default a config overrides.
    package var sampleRate: Int { 22_050 }

    /// Bytes of weights held in memory (repacked for the convolution kernels).
    package let residentBytes: Int

    /// The phoneme-id vocabulary size (rows of the embedding table).
    package var vocabularySize: Int { encoder.vocabularySize }

    init(model: ONNXModel) throws(ModelError) {
        let source = VITSWeightSource(model: model)
        encoder = try VITSTextEncoder(source)
        durations = try VITSDurationPredictor(source)
        flow = try VITSFlow(source)
        decoder = try VITSDecoder(source)
        hopLength = decoder.stages.reduce(1) { $0 * $1.upsample.stride }
        residentBytes = encoder.byteCount + durations.byteCount + flow.byteCount + decoder.byteCount
    }

    /// Loads a Piper voice from its `.onnx` file.
    package static func load(onnx: URL) throws(ModelError) -> PiperVoiceModel {
        let model: ONNXModel
        do { model = try ONNXModel(path: onnx.path) } catch { throw .format(error) }
        return try PiperVoiceModel(model: model)
    }

    /// Synthesizes the waveform for `phonemeIDs` (already mapped through the voice's
    /// `phoneme_id_map`, with Piper's `^ … _ … $` framing). Deterministic for a given `seed`.
    package func synthesize(phonemeIDs: [Int], scales: PiperScales, seed: UInt64, threads: Int) throws(ModelError) -> PiperAudio {
        guard !phonemeIDs.isEmpty else { throw .emptyPhonemeIDs }
        if let position = phonemeIDs.firstIndex(where: { $0 < 0 || $0 >= encoder.vocabularySize }) {
            throw .phonemeIDOutOfRange(id: phonemeIDs[position], position: position, vocabularySize: encoder.vocabularySize)
        }
        guard scales.lengthScale.isFinite, scales.lengthScale > 0, scales.noiseScale.isFinite, scales.noiseW.isFinite else {
            throw .invalidHyperparameter(key: "scales", value: "\(scales)")
        }
        let threads = max(1, threads)
        let n = phonemeIDs.count
        var noise = PiperNoise(seed: seed)
        let (hidden, statistics) = encoder(phonemeIDs, threads: threads)
        let durationNoise = FeatureMap(channels: 2, length: n, data: noise.normals(2 * n, scale: scales.noiseW))
        let logw = durations.logDurations(hidden, noise: durationNoise, threads: threads)
        let widths = logw.map { exp($0) * scales.lengthScale }
        // A frame is 256 samples (~12 ms); more than 10^5 for one id can only come from absurd scales.
        if let position = widths.firstIndex(where: { !$0.isFinite || $0 > 100_000 }) {
            throw .invalidHyperparameter(key: "duration of phoneme id at \(position)", value: "\(widths[position]) frames")
        }
        let frames = widths.map { Int($0.rounded(.up)) }
        let total = max(1, frames.reduce(0, +))
        // Length regulation: each id's prior statistics repeated for its frames.
        let channels = statistics.channels / 2
        var prior = FeatureMap(channels: channels, length: total)
        let draws = noise.normals(channels * total, scale: scales.noiseScale)
        // Row by row (contiguous writes), one exp per (channel, id) rather than per frame.
        for c in 0..<channels {
            var frame = c * total
            for (i, count) in frames.enumerated() {
                let mean = statistics.data[c * n + i], deviation = exp(statistics.data[(channels + c) * n + i])
                for _ in 0..<count {
                    prior.data[frame] = mean + draws[frame] * deviation
                    frame += 1
                }
            }
        }
        let z = flow.reverse(prior, threads: threads)
        return PiperAudio(samples: decoder(z, threads: threads), framesPerID: frames)
    }
}
