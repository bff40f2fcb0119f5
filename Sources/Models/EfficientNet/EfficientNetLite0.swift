import CKernels
import Kernels

/// EfficientNet-Lite0 (Tan & Le 2019, "EfficientNet"; the Lite variants drop squeeze-excite and
/// use ReLU6): image → 1280-d pooled feature and 1000 ImageNet logits. Weights come from the
/// lukemelas/efficientnet_pytorch-style checkpoint with batch norms folded at load; the
/// reference forward pass is golden/vision/tools/effnet_lite0.py.
///
/// Activations are HWC inside (see `Convolution`); input and outputs are as torch has them.
/// Immutable after load, so one instance serves any number of concurrent `run` calls.
package final class EfficientNetLite0: Sendable {
    package static let inputSize = 224
    package static let featureCount = 1280
    package static let classCount = 1000

    let stem: FoldedConv
    let blocks: [Block]
    let head: FoldedConv
    let fcWeight: [Float]  // (1000, 1280)
    let fcBias: [Float]  // (1000)

    init(stem: FoldedConv, blocks: [Block], head: FoldedConv, fcWeight: [Float], fcBias: [Float]) {
        self.stem = stem
        self.blocks = blocks
        self.head = head
        self.fcWeight = fcWeight
        self.fcBias = fcBias
    }

    /// Bytes of weights held (folded f32 copies; the checkpoint mapping is released after load).
    package var residentBytes: Int {
        let convs = [stem, head] + blocks.flatMap { [$0.expand, $0.depthwise, $0.project].compactMap { $0 } }
        return (convs.reduce(0) { $0 + $1.weight.count + $1.bias.count } + fcWeight.count + fcBias.count) * 4
    }

    /// Runs the network on one preprocessed image: `input` is (3, 224, 224) NCHW, R, G, B
    /// (`EfficientNetPreprocessing.input`). Returns the raw pooled feature (1280) and logits (1000).
    package func run(input: [Float], threads: Int) -> (feature: [Float], logits: [Float]) {
        let side = Self.inputSize
        precondition(input.count == 3 * side * side, "EfficientNetLite0.run: input must be 3x224x224")
        // Largest activation: block 1's expansion, 112x112 pixels x 96 channels.
        let capacity = 112 * 112 * 96
        let arena = UnsafeMutablePointer<Float>.allocate(capacity: 4 * capacity)
        defer { arena.deallocate() }
        var feature = [Float](repeating: 0, count: Self.featureCount)
        var logits = [Float](repeating: 0, count: Self.classCount)
        var pass = Pass(x: arena, expanded: arena + capacity, filtered: arena + 2 * capacity, spare: arena + 3 * capacity,
                        threads: threads)
        input.withUnsafeBufferPointer { pass.forward(model: self, input: $0.baseAddress!) }
        feature.withUnsafeMutableBufferPointer { f in
            Convolution.globalAveragePool(pass.x, pixels: pass.height * pass.width, channels: Self.featureCount,
                                          out: f.baseAddress!)
            logits.withUnsafeMutableBufferPointer { l in
                fcWeight.withUnsafeBufferPointer { w in
                    // (1, 1280) x (1000, 1280)^T: the linear classifier.
                    od_gemm(1, Int64(Self.classCount), Int64(Self.featureCount), f.baseAddress!, Int64(Self.featureCount),
                            w.baseAddress!, Int64(Self.featureCount), 0, 0, l.baseAddress!, Int64(Self.classCount), 0, 0,
                            Int64(Self.classCount))
                }
            }
        }
        for i in 0..<Self.classCount { logits[i] += fcBias[i] }
        return (feature, logits)
    }
}

/// A convolution with its batch norm folded in: weight (layout per kind, see the loader) and bias.
struct FoldedConv: Sendable {
    let weight: [Float]
    let bias: [Float]  // (outChannels)
    let outChannels: Int
    let inChannels: Int
    let kernel: Int
}

/// One MBConv block without squeeze-excite: [expand 1x1 + ReLU6] → depthwise kxk + ReLU6 →
/// project 1x1 (linear) [+ input].
struct Block: Sendable {
    let expand: FoldedConv?
    let depthwise: FoldedConv
    let project: FoldedConv
    let stride: Int
    let residual: Bool
}
