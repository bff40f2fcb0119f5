import Foundation
import Formats

/// Hyperparameters of a Whisper model, read from the variable shapes of its CTranslate2 file
/// (the file carries no separate hyperparameter block).
package struct WhisperConfig: Sendable, Equatable {
    /// Mel bands of the input (80; 128 for large-v3).
    package var melCount: Int
    /// Model width d (384 tiny, 512 base).
    package var width: Int
    package var encoderLayers: Int
    package var encoderHeads: Int
    package var decoderLayers: Int
    package var decoderHeads: Int
    /// Vocabulary including special and timestamp tokens (51864 English-only, 51865+ multilingual).
    package var vocabularySize: Int
    /// Encoder positions: 1500 for 30 s (two mel frames each).
    package var audioContext: Int
    /// Decoder positions: 448.
    package var textContext: Int

    package var feedForwardWidth: Int { 4 * width }
    /// Multilingual vocabularies have 51865 tokens or more (the English-only ones 51864).
    package var isMultilingual: Bool { vocabularySize >= 51865 }

    package init(melCount: Int, width: Int, encoderLayers: Int, encoderHeads: Int, decoderLayers: Int,
                 decoderHeads: Int, vocabularySize: Int, audioContext: Int, textContext: Int) {
        self.melCount = melCount
        self.width = width
        self.encoderLayers = encoderLayers
        self.encoderHeads = encoderHeads
        self.decoderLayers = decoderLayers
        self.decoderHeads = decoderHeads
        self.vocabularySize = vocabularySize
        self.audioContext = audioContext
        self.textContext = textContext
    }

    /// Reads the shapes of a CTranslate2 `WhisperSpec` file.
    package init(file: CTranslate2Model) throws(ModelError) {
        guard file.specName == "WhisperSpec" else { throw .unsupportedArchitecture(file.specName) }
        func shape(_ name: String) throws(ModelError) -> [Int] {
            guard let v = file.variables[name] else { throw .format(.missingTensor(name: name)) }
            return v.shape
        }
        func layerCount(_ prefix: String) -> Int {
            var n = 0
            while file.hasVariable("\(prefix)/layer_\(n)/ffn/linear_0/weight") { n += 1 }
            return n
        }
        let conv1 = try shape("encoder/conv1/weight")  // [d, mels, 3]
        guard conv1.count == 3, conv1[2] == 3 else { throw .shapeMismatch(tensor: "encoder/conv1/weight", expected: [-1, -1, 3], found: conv1) }
        let embeddings = try shape("decoder/embeddings/weight")  // [vocab, d]
        let encoderPositions = try shape("encoder/position_encodings/encodings")  // [1500, d]
        let decoderPositions = try shape("decoder/position_encodings/encodings")  // [448, d]
        self.init(melCount: conv1[1], width: conv1[0],
                  encoderLayers: layerCount("encoder"), encoderHeads: file.integerScalar("encoder/num_heads") ?? 0,
                  decoderLayers: layerCount("decoder"), decoderHeads: file.integerScalar("decoder/num_heads") ?? 0,
                  vocabularySize: embeddings.first ?? 0, audioContext: encoderPositions.first ?? 0,
                  textContext: decoderPositions.first ?? 0)
        let checks: [(String, Int)] = [("encoder layers", encoderLayers), ("decoder layers", decoderLayers),
                                       ("encoder/num_heads", encoderHeads), ("decoder/num_heads", decoderHeads)]
        for (key, value) in checks where value <= 0 { throw .invalidHyperparameter(key: key, value: "\(value)") }
        for (key, heads) in [("encoder/num_heads", encoderHeads), ("decoder/num_heads", decoderHeads)]
            where width % heads != 0 || (width / heads) % 8 != 0 {
            throw .invalidHyperparameter(key: key, value: "\(heads) heads for width \(width)")
        }
        guard embeddings.count == 2, embeddings[1] == width else {
            throw .shapeMismatch(tensor: "decoder/embeddings/weight", expected: [vocabularySize, width], found: embeddings)
        }
    }
}

/// Decoding constants from a faster-whisper model folder's `config.json`.
package struct WhisperGenerationConfig: Sendable, Equatable {
    /// Tokens suppressed at every step by default (`suppress_ids`): non-speech symbols.
    package var suppressIds: [Int32]
    /// Tokens suppressed at the first sampled step (`suppress_ids_begin`): blank and end-of-text.
    package var suppressIdsBegin: [Int32]
    /// Language token ids (`lang_ids`); empty for English-only models.
    package var languageIds: [Int32]
    /// Cross-attention heads whose weights follow the timing of speech (`alignment_heads`,
    /// pairs of decoder layer and head); empty when the file names none, and then word
    /// alignment uses every head of the last half of the decoder layers, as faster-whisper does.
    package var alignmentHeads: [WhisperAlignmentHead]

    package init(suppressIds: [Int32] = [], suppressIdsBegin: [Int32] = [], languageIds: [Int32] = [],
                 alignmentHeads: [WhisperAlignmentHead] = []) {
        self.suppressIds = suppressIds
        self.suppressIdsBegin = suppressIdsBegin
        self.languageIds = languageIds
        self.alignmentHeads = alignmentHeads
    }

    /// Parses `config.json` (extra keys are ignored; missing keys leave empty lists).
    package init(json: Data) throws(ModelError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let dict = object as? [String: Any] else {
            throw .invalidHyperparameter(key: "config.json", value: "not a JSON object")
        }
        func ids(_ key: String) throws(ModelError) -> [Int32] {
            guard let raw = dict[key] else { return [] }
            guard let numbers = raw as? [NSNumber] else { throw .invalidHyperparameter(key: key, value: "\(raw)") }
            return numbers.map { $0.int32Value }
        }
        var heads: [WhisperAlignmentHead] = []
        if let raw = dict["alignment_heads"] {
            guard let pairs = raw as? [[NSNumber]], pairs.allSatisfy({ $0.count == 2 }) else {
                throw .invalidHyperparameter(key: "alignment_heads", value: "\(raw)")
            }
            heads = pairs.map { WhisperAlignmentHead(layer: $0[0].intValue, head: $0[1].intValue) }
        }
        self.init(suppressIds: try ids("suppress_ids"), suppressIdsBegin: try ids("suppress_ids_begin"),
                  languageIds: try ids("lang_ids"), alignmentHeads: heads)
    }
}

/// One decoder cross-attention head: `head` of decoder layer `layer`.
package struct WhisperAlignmentHead: Sendable, Equatable, Hashable {
    package var layer: Int
    package var head: Int

    package init(layer: Int, head: Int) {
        self.layer = layer
        self.head = head
    }
}
