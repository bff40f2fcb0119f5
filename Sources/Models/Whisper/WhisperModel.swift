import Foundation
import Formats
import Tensor

/// A loaded Whisper encoder–decoder (OpenAI Whisper, Radford et al. 2022) from a faster-whisper
/// model folder: CTranslate2 `model.bin` (weights) and `config.json` (decoding constants).
/// Immutable and shareable; the per-transcription buffers live in `WhisperState`.
///
/// Encoder: conv1d(mels→d, k3, p1) + GELU, conv1d(d→d, k3, s2, p1) + GELU, + sinusoidal
/// positions, pre-norm transformer layers, final layer norm. Decoder: token embedding + learned
/// positions, pre-norm layers of causal self-attention, cross-attention over the encoder
/// output and a GELU MLP, final layer norm, logits against the token embedding (tied).
/// The layout follows CTranslate2's `WhisperSpec` revision 3.
package final class WhisperModel: Sendable {
    package let config: WhisperConfig
    package let generation: WhisperGenerationConfig
    package let weights: WhisperWeights
    /// Keeps the mapping behind the weights alive.
    package let file: CTranslate2Model

    /// Loads `model.bin` and `config.json` from a faster-whisper model folder.
    package convenience init(directory: String) throws(ModelError) {
        let json: Data
        let configPath = (directory as NSString).appendingPathComponent("config.json")
        do { json = try Data(contentsOf: URL(fileURLWithPath: configPath)) } catch {
            throw .format(.io(.cannotOpen(path: configPath, errno: ENOENT)))
        }
        try self.init(modelPath: (directory as NSString).appendingPathComponent("model.bin"),
                      generation: try WhisperGenerationConfig(json: json))
    }

    package init(modelPath: String, generation: WhisperGenerationConfig) throws(ModelError) {
        let file: CTranslate2Model
        do { file = try CTranslate2Model.open(path: modelPath) } catch { throw .format(error) }
        let config = try WhisperConfig(file: file)
        self.weights = try WhisperWeights(file: file, config: config)
        self.config = config
        self.generation = generation
        self.file = file
    }

    /// Bytes of mapped weights.
    package var weightBytes: Int { file.region.count }
}
