import Kernels

/// One forward pass over four caller-owned activation buffers of 112·112·96 floats each.
/// `x` always holds the current block input (HWC, `height` x `width` x `channels`); residual
/// blocks add their projection into it in place, the others write `spare` and swap.
struct Pass {
    var x: UnsafeMutablePointer<Float>
    var expanded: UnsafeMutablePointer<Float>
    let filtered: UnsafeMutablePointer<Float>
    var spare: UnsafeMutablePointer<Float>
    let threads: Int
    var height = 0, width = 0, channels = 0

    init(x: UnsafeMutablePointer<Float>, expanded: UnsafeMutablePointer<Float>, filtered: UnsafeMutablePointer<Float>,
         spare: UnsafeMutablePointer<Float>, threads: Int) {
        self.x = x
        self.expanded = expanded
        self.filtered = filtered
        self.spare = spare
        self.threads = max(1, threads)
    }

    static let relu6: ClosedRange<Float> = 0...6

    /// Stem, the 16 blocks and the head; afterwards `x` holds the head activation (7x7x1280).
    mutating func forward(model: EfficientNetLite0, input: UnsafePointer<Float>) {
        let side = EfficientNetLite0.inputSize, plane = side * side
        // (3, 224, 224) NCHW → (224, 224, 3) HWC.
        for p in 0..<plane { for c in 0..<3 { spare[p * 3 + c] = input[c * plane + p] } }
        let stem = model.stem
        let (window, h, w) = Convolution.Window.same(kernel: stem.kernel, stride: 2, height: side, width: side)
        stem.weight.withUnsafeBufferPointer { wp in stem.bias.withUnsafeBufferPointer { bp in
            Convolution.conv2d(spare, height: side, width: side, inChannels: 3, weight: wp.baseAddress!,
                               bias: bp.baseAddress!, outChannels: stem.outChannels, window: window, outHeight: h,
                               outWidth: w, clamp: Self.relu6, scratch: expanded, out: x, threads: threads)
        } }
        (height, width, channels) = (h, w, stem.outChannels)
        for block in model.blocks { run(block) }
        pointwise(model.head, from: x, to: expanded, clamp: Self.relu6, accumulate: false)
        swap(&x, &expanded)
        channels = model.head.outChannels
    }

    private mutating func run(_ block: Block) {
        var source = x
        if let expand = block.expand {
            pointwise(expand, from: x, to: expanded, clamp: Self.relu6, accumulate: false)
            source = expanded
        }
        let dw = block.depthwise
        let (window, h, w) = Convolution.Window.same(kernel: dw.kernel, stride: block.stride, height: height, width: width)
        nonisolated(unsafe) let src = source
        dw.weight.withUnsafeBufferPointer { wp in dw.bias.withUnsafeBufferPointer { bp in
            Convolution.depthwise(src, height: height, width: width, channels: dw.outChannels, weight: wp.baseAddress!,
                                  bias: bp.baseAddress!, window: window, outHeight: h, outWidth: w, clamp: Self.relu6,
                                  out: filtered, threads: threads)
        } }
        (height, width) = (h, w)
        if block.residual {
            pointwise(block.project, from: filtered, to: x, clamp: nil, accumulate: true)
        } else {
            pointwise(block.project, from: filtered, to: spare, clamp: nil, accumulate: false)
            swap(&x, &spare)
        }
        channels = block.project.outChannels
    }

    private func pointwise(_ conv: FoldedConv, from input: UnsafeMutablePointer<Float>, to out: UnsafeMutablePointer<Float>,
                           clamp: ClosedRange<Float>?, accumulate: Bool) {
        conv.weight.withUnsafeBufferPointer { wp in conv.bias.withUnsafeBufferPointer { bp in
            Convolution.pointwise(input, pixels: height * width, inChannels: conv.inChannels, weight: wp.baseAddress!,
                                  bias: bp.baseAddress!, outChannels: conv.outChannels, clamp: clamp,
                                  accumulate: accumulate, out: out, threads: threads)
        } }
    }
}
