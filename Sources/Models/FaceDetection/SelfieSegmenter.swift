import Foundation
import Formats

/// MediaPipe's selfie segmenter (`selfie_segmentation.tflite`, the general 256 × 256 model): an
/// RGB image stretched to 256 × 256 in [0, 1] to a 256 × 256 person probability (the network ends
/// in a logistic, so values are 0...1, person high).
package final class SelfieSegmenter: Sendable {
    package static let inputSize = 256

    let graph: TFLiteGraph

    package init(model: TFLiteModel) throws(ModelError) {
        let graph = try TFLiteGraph(model: model)
        let n = Self.inputSize
        guard graph.shapes[graph.input] == [1, n, n, 3] else {
            throw .shapeMismatch(tensor: "input", expected: [1, n, n, 3], found: graph.shapes[graph.input])
        }
        guard graph.outputs.count == 1, graph.shapes[graph.outputs[0]] == [1, n, n, 1] else {
            throw .shapeMismatch(tensor: "outputs", expected: [1, n, n, 1], found: graph.outputs.flatMap { graph.shapes[$0] })
        }
        self.graph = graph
    }

    package convenience init(path: String) throws(ModelError) {
        let model: TFLiteModel
        do { model = try TFLiteModel(path: path) } catch { throw .format(error) }
        try self.init(model: model)
    }

    /// f32 weights held plus the largest activation pair a run allocates.
    package var residentBytes: Int { graph.weightBytes + 2 * 4 * graph.largestActivation }

    /// The raw mask (256 × 256, row-major) for one input tensor (1, 256, 256, 3).
    package func run(_ input: [Float], threads: Int) throws(ModelError) -> [Float] {
        try graph.run(input, threads: threads)[0]
    }
}
