import Tensor

/// The projections of a decoder layer that are plain matrix products, i.e. what a LoRA
/// adapter can target. Raw values are the GGUF tensor name stems (`blk.N.<stem>.weight`).
package enum LayerMatrix: String, CaseIterable, Sendable {
    case query = "attn_q"
    case key = "attn_k"
    case value = "attn_v"
    case output = "attn_output"
    case gate = "ffn_gate"
    case up = "ffn_up"
    case down = "ffn_down"

    /// The matrices a layer multiplies by one input, in the order a decoder layer uses them:
    /// query, key and value; the attention output; gate and up; down.
    package static let inputGroups: [[LayerMatrix]] = [[.query, .key, .value], [.output], [.gate, .up], [.down]]

    /// Position in `allCases`, for flat per-layer tables.
    package var index: Int {
        switch self {
        case .query: 0
        case .key: 1
        case .value: 2
        case .output: 3
        case .gate: 4
        case .up: 5
        case .down: 6
        }
    }
}

extension DecoderLayerWeights {
    /// The weight of `matrix`, shape [in, out] (ggml order).
    package subscript(matrix matrix: LayerMatrix) -> TensorView {
        switch matrix {
        case .query: query
        case .key: key
        case .value: value
        case .output: output
        case .gate: gate
        case .up: up
        case .down: down
        }
    }
}
