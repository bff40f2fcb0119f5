import Formats
import Kernels

/// A float32 TFLite graph (NHWC, batch 1) compiled for this engine's kernels: the operators of
/// MediaPipe's vision models (ADD, CONCATENATION, CONV_2D, DEPTHWISE_CONV_2D, DEQUANTIZE,
/// MAX_POOL_2D, PAD, PRELU, RELU, RESHAPE, and for the selfie segmenter AVERAGE_POOL_2D, HARD_SWISH,
/// LOGISTIC, MUL, RESIZE_BILINEAR and MediaPipe's custom Convolution2DTransposeBias). Compiling folds the float16 weights' DEQUANTIZE
/// operators into f32 constants, checks every operator's shapes against the file's declared
/// output shapes, and refuses what it cannot run exactly (typed `ModelError`), so the kernels
/// below run unchecked on shapes that are proven to fit.
///
/// Immutable after `init`: any number of `run` calls may go at once, each with its own activations.
package final class TFLiteGraph: Sendable {
    /// One compiled operator; operands are the subgraph's tensor indices.
    enum Step: Sendable {
        /// `weight` (outChannels, k, k, inChannels), the file's CONV_2D layout.
        case conv(input: Int, output: Int, weight: [Float], bias: [Float]?, window: Convolution.Window, clamp: ClosedRange<Float>?)
        /// `weight` (k, k, channels), the file's DEPTHWISE_CONV_2D layout with depth multiplier 1.
        case depthwise(input: Int, output: Int, weight: [Float], bias: [Float]?, window: Convolution.Window, clamp: ClosedRange<Float>?)
        case maxPool(input: Int, output: Int, filterH: Int, filterW: Int, strideH: Int, strideW: Int, padTop: Int, padLeft: Int)
        /// Zeros around the input: `before`/`after` per axis of the 4-D (left-filled with 1s) shape.
        case pad(input: Int, output: Int, before: [Int], after: [Int])
        /// a + b, where b has a's shape, or one value per channel (the last axis), or one value.
        case add(a: Int, b: Int, output: Int, clamp: ClosedRange<Float>?)
        case relu(input: Int, output: Int)
        /// x < 0 ? alpha[c] x : x, alpha one value per channel (the last axis).
        case prelu(input: Int, output: Int, alpha: [Float])
        case concat(inputs: [Int], output: Int, axis: Int)
        /// RESHAPE: the same values under another shape.
        case copy(input: Int, output: Int)
        /// Mean over each window's taps inside the input (taps in the padding are not counted).
        case averagePool(input: Int, output: Int, filterH: Int, filterW: Int, strideH: Int, strideW: Int, padTop: Int, padLeft: Int)
        /// x · relu6(x + 3) / 6.
        case hardSwish(input: Int, output: Int)
        /// 1 / (1 + e^-x).
        case logistic(input: Int, output: Int)
        /// a · b with NumPy broadcasting of two 4-D (left-filled with 1s) shapes, then the clamp.
        case mul(a: Int, b: Int, output: Int, clamp: ClosedRange<Float>?)
        /// TFLite's RESIZE_BILINEAR to the output's height and width.
        case resizeBilinear(input: Int, output: Int, alignCorners: Bool, halfPixelCenters: Bool)
        /// MediaPipe's Convolution2DTransposeBias: `weight` (outChannels, kH, kW, inChannels); each input
        /// pixel (y, x) adds its taps at output (y·strideH − padTop + ky, x·strideW − padLeft + kx); then bias.
        case transposeConv(input: Int, output: Int, weight: [Float], bias: [Float], kernelH: Int, kernelW: Int,
                           strideH: Int, strideW: Int, padTop: Int, padLeft: Int)
    }

    /// Largest activation this engine allocates (elements); a graph declaring more is refused.
    static let maxActivation = 1 << 26
    /// Largest sum of all activations of a graph (elements); BlazeFace needs about 2.5 million.
    static let maxTotalActivation = 1 << 28

    let tensorNames: [String]
    /// Declared shape of every tensor.
    package let shapes: [[Int]]
    let steps: [Step]
    /// f32 values of constant tensors (float weights and folded DEQUANTIZE outputs).
    let constants: [Int: [Float]]
    /// The graph's input and output tensors.
    package let input: Int
    package let outputs: [Int]
    /// Tensors whose values can be dropped after each step (their last reader).
    let released: [[Int]]

    /// Bytes of f32 constants held.
    package var weightBytes: Int { constants.values.reduce(0) { $0 + 4 * $1.count } }

    /// Elements of the largest activation a run holds (for memory estimates).
    package var largestActivation: Int {
        steps.map { step in shapes[step.output].reduce(1, *) }.max() ?? 0
    }

    /// Compiles subgraph 0 of `model`, which must have one input.
    package init(model: TFLiteModel) throws(ModelError) {
        let graph = model.subgraphs[0]
        tensorNames = graph.tensors.map(\.name)
        shapes = graph.tensors.map(\.shape)
        guard graph.inputs.count == 1 else {
            throw .invalidHyperparameter(key: "subgraph inputs", value: "\(graph.inputs.count) (one image input expected)")
        }
        input = graph.inputs[0]
        let inputShape = graph.tensors[input].shape
        guard inputShape.allSatisfy({ $0 > 0 }), inputShape.reduce(1, *) <= Self.maxActivation, graph.tensors[input].type == .float32 else {
            throw .shapeMismatch(tensor: graph.tensors[input].name, expected: [], found: inputShape)
        }
        outputs = graph.outputs
        var compiler = Compiler(model: model, graph: graph)
        for (index, op) in graph.operators.enumerated() {
            try compiler.compile(op, index: index)
        }
        // A constant read as an activation (an ADD with a weight tensor, say) is folded here,
        // once: steps carry their weights, but their activation operands come from `values`
        // or `constants` at run time, and an unfolded one would have no value.
        let written = Set(compiler.steps.map(\.output)).union([input])
        for (index, step) in compiler.steps.enumerated() {
            for t in step.inputs where !written.contains(t) && compiler.constants[t] == nil {
                guard let values = try compiler.constant(t) else {
                    throw .unsupportedOperator(index: index, op: "operand", reason: "tensor '\(graph.tensors[t].name)' has no value")
                }
                guard values.count == graph.tensors[t].shape.reduce(1, *) else {
                    throw .shapeMismatch(tensor: graph.tensors[t].name, expected: graph.tensors[t].shape, found: [values.count])
                }
                compiler.constants[t] = values
            }
        }
        for output in outputs where !compiler.available.contains(output) {
            throw .unsupportedOperator(index: graph.operators.count, op: "outputs",
                                       reason: "graph output '\(graph.tensors[output].name)' is never written")
        }
        steps = compiler.steps
        constants = compiler.constants
        // Each activation is released after its last reader, unless the caller gets it back.
        var last: [Int: Int] = [:]
        for (i, step) in compiler.steps.enumerated() { for t in step.inputs { last[t] = i } }
        var released = [[Int]](repeating: [], count: compiler.steps.count)
        for (t, i) in last where !outputs.contains(t) && compiler.constants[t] == nil { released[i].append(t) }
        self.released = released
    }
}

extension TFLiteGraph.Step {
    var output: Int {
        switch self {
        case .conv(_, let o, _, _, _, _), .depthwise(_, let o, _, _, _, _), .maxPool(_, let o, _, _, _, _, _, _),
             .pad(_, let o, _, _), .add(_, _, let o, _), .relu(_, let o), .prelu(_, let o, _), .concat(_, let o, _), .copy(_, let o),
             .averagePool(_, let o, _, _, _, _, _, _), .hardSwish(_, let o), .logistic(_, let o), .mul(_, _, let o, _),
             .resizeBilinear(_, let o, _, _), .transposeConv(_, let o, _, _, _, _, _, _, _, _):
            o
        }
    }

    var inputs: [Int] {
        switch self {
        case .conv(let i, _, _, _, _, _), .depthwise(let i, _, _, _, _, _), .maxPool(let i, _, _, _, _, _, _, _),
             .pad(let i, _, _, _), .relu(let i, _), .prelu(let i, _, _), .copy(let i, _),
             .averagePool(let i, _, _, _, _, _, _, _), .hardSwish(let i, _), .logistic(let i, _),
             .resizeBilinear(let i, _, _, _), .transposeConv(let i, _, _, _, _, _, _, _, _, _):
            [i]
        case .add(let a, let b, _, _), .mul(let a, let b, _, _): [a, b]
        case .concat(let inputs, _, _): inputs
        }
    }
}
