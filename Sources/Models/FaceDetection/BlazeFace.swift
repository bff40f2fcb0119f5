import Foundation
import Formats

/// BlazeFace short range (MediaPipe `face_detection_short_range.tflite`): a 128 × 128 RGB tensor
/// in [-1, 1] to 896 anchor boxes, each 16 regressor values (box centre and size, then six
/// keypoints, in 128-pixel units relative to the anchor) and one score logit.
package final class BlazeFace: Sendable {
    package static let inputSize = 128
    package static let anchorCount = 896
    package static let valuesPerAnchor = 16

    let graph: TFLiteGraph

    /// Compiles the graph and checks it has BlazeFace's input and outputs.
    package init(model: TFLiteModel) throws(ModelError) {
        graph = try TFLiteGraph(model: model)
        let n = Self.inputSize
        guard graph.shapes[graph.input] == [1, n, n, 3] else {
            throw .shapeMismatch(tensor: "input", expected: [1, n, n, 3], found: graph.shapes[graph.input])
        }
        let expected = [[1, Self.anchorCount, Self.valuesPerAnchor], [1, Self.anchorCount, 1]]
        guard graph.outputs.map({ graph.shapes[$0] }) == expected else {
            throw .shapeMismatch(tensor: "outputs", expected: expected.flatMap { $0 }, found: graph.outputs.flatMap { graph.shapes[$0] })
        }
    }

    package convenience init(path: String) throws(ModelError) {
        let model: TFLiteModel
        do { model = try TFLiteModel(path: path) } catch { throw .format(error) }
        try self.init(model: model)
    }

    /// f32 weights held plus the largest activation pair a run allocates.
    package var residentBytes: Int { graph.weightBytes + 2 * 4 * graph.largestActivation }

    /// Raw outputs for one input tensor (1, 128, 128, 3): regressors (896, 16) and logits (896).
    package func run(_ input: [Float], threads: Int) throws(ModelError) -> (regressors: [Float], logits: [Float]) {
        let outputs = try graph.run(input, threads: threads)
        return (outputs[0], outputs[1])
    }
}
