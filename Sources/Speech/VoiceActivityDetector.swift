import Audio
import Foundation
import Models

/// Voice activity detection with Silero VAD v6: per-frame speech probabilities (512 samples =
/// 32 ms at 16 kHz) and speech segments with silero-vad's `get_speech_timestamps` semantics.
///
/// Frames are scored as silero-vad's `OnnxWrapper` streams them: each model input is the
/// previous 64 samples (zeros at the start) followed by 512 new ones, the LSTM state carries
/// over, and a last partial frame is zero-padded.
package final class VoiceActivityDetector {
    package let model: SileroVADModel
    package var options: VADOptions
    let state = SileroVADState()
    /// The last 64 samples of the previous input, then room for a frame. (576)
    private var input = [Float](repeating: 0, count: SileroVADModel.contextSamples + SileroVADModel.frameSamples)

    package init(model: SileroVADModel, options: VADOptions = VADOptions()) {
        self.model = model
        self.options = options
    }

    /// Loads `silero_vad_16k.safetensors`.
    package convenience init(path: String, options: VADOptions = VADOptions()) throws(SpeechError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .missingFile(path: path) }
        do { self.init(model: try SileroVADModel(path: path), options: options) } catch { throw .model(error) }
    }

    /// Starts a new recording: zero context and LSTM memory.
    package func reset() {
        state.reset()
        for i in input.indices { input[i] = 0 }
    }

    /// The probability of the next 512 samples (fewer are zero-padded), continuing the stream.
    package func probability(ofFrame frame: ArraySlice<Float>) -> Float {
        precondition(frame.count <= SileroVADModel.frameSamples)
        let context = SileroVADModel.contextSamples
        var i = context
        for s in frame { input[i] = s; i += 1 }
        while i < input.count { input[i] = 0; i += 1 }
        let p = input.withUnsafeBufferPointer { model.probability($0.baseAddress!, state: state) }
        // The next frame's context is the last 64 samples of this input.
        for k in 0..<context { input[k] = input[input.count - context + k] }
        return p
    }

    /// Speech probability of every frame of 16 kHz `samples`, from a fresh state.
    package func probabilities(_ samples: [Float]) -> [Float] {
        reset()
        let n = SileroVADModel.frameSamples
        return stride(from: 0, to: samples.count, by: n).map { probability(ofFrame: samples[$0..<min($0 + n, samples.count)]) }
    }

    /// Speech segments of 16 kHz `samples`.
    package func detect(_ samples: [Float]) -> [SpeechSegment] {
        SpeechTimestamps.segments(probabilities: probabilities(samples), sampleCount: samples.count, options: options)
    }

    /// Speech segments of `clip` (resampled to 16 kHz first), in samples of the 16 kHz audio.
    package func detect(_ clip: AudioClip) throws(SpeechError) -> [SpeechSegment] {
        do { return detect(try clip.resampled(to: SileroVADModel.sampleRate).samples) } catch { throw .audio(error) }
    }
}
