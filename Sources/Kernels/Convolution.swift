import CKernels

/// Convolutions over HWC (pixel-major, channels contiguous) float images: what image networks
/// such as EfficientNet-Lite0 need. 1x1 convolutions are one GEMM (pixels x in → pixels x out),
/// larger kernels unfold into GEMM rows first (im2col), and depthwise filters have their own
/// AVX2 kernel. Every call splits output rows over `threads` workers.
package enum Convolution {
    /// TensorFlow "SAME" padding along one axis: output = ceil(input / stride); total padding
    /// max((output - 1) * stride + kernel - input, 0), the smaller half before, the rest after.
    package static func samePadding(input: Int, kernel: Int, stride: Int) -> (output: Int, before: Int, after: Int) {
        let output = (input + stride - 1) / stride
        let total = max((output - 1) * stride + kernel - input, 0)
        return (output, total / 2, total - total / 2)
    }

    /// A k x k window with its stride and the padding on the top/left side (the bottom/right
    /// side follows from the output size).
    package struct Window: Sendable, Equatable {
        package let kernel: Int
        package let stride: Int
        package let padTop: Int
        package let padLeft: Int

        package init(kernel: Int, stride: Int, padTop: Int, padLeft: Int) {
            self.kernel = kernel
            self.stride = stride
            self.padTop = padTop
            self.padLeft = padLeft
        }

        /// TF-SAME for an `height` x `width` input; returns the window and the output size.
        package static func same(kernel: Int, stride: Int, height: Int, width: Int) -> (Window, height: Int, width: Int) {
            let y = samePadding(input: height, kernel: kernel, stride: stride)
            let x = samePadding(input: width, kernel: kernel, stride: stride)
            return (Window(kernel: kernel, stride: stride, padTop: y.before, padLeft: x.before), y.output, x.output)
        }
    }

    /// out(p, co) = clamp(bias[co] + Σ_ci in(p, ci) · weight[co · inChannels + ci]) for `pixels`
    /// rows; with `accumulate`, out's previous contents are added first (a residual connection).
    /// `clamp` nil means no activation; 0...6 is ReLU6.
    package static func pointwise(_ input: UnsafePointer<Float>, pixels: Int, inChannels: Int,
                                  weight: UnsafePointer<Float>, bias: UnsafePointer<Float>?, outChannels: Int,
                                  clamp: ClosedRange<Float>?, accumulate: Bool = false,
                                  out: UnsafeMutablePointer<Float>, threads: Int) {
        let (lo, hi) = bounds(clamp)
        nonisolated(unsafe) let (ip, wp, bp, op) = (input, weight, bias, out)
        forRowChunks(rows: pixels, work: pixels * inChannels * outChannels, threads: threads) { begin, end in
            od_gemm(Int64(end - begin), Int64(outChannels), Int64(inChannels), ip + begin * inChannels, Int64(inChannels),
                    wp, Int64(inChannels), 0, 0, op + begin * outChannels, Int64(outChannels), accumulate ? 1 : 0,
                    0, Int64(outChannels))
            od_bias_clamp_rows(op + begin * outChannels, bp, Int64(end - begin), Int64(outChannels), lo, hi)
        }
    }

    /// A dense k x k convolution through im2col + GEMM. `weight` is (outChannels, k, k, inChannels);
    /// `scratch` holds outHeight·outWidth·k·k·inChannels floats.
    package static func conv2d(_ input: UnsafePointer<Float>, height: Int, width: Int, inChannels: Int,
                               weight: UnsafePointer<Float>, bias: UnsafePointer<Float>?, outChannels: Int,
                               window: Window, outHeight: Int, outWidth: Int, clamp: ClosedRange<Float>?,
                               scratch: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>, threads: Int) {
        let reduction = window.kernel * window.kernel * inChannels
        let pixels = outHeight * outWidth
        nonisolated(unsafe) let (ip, sp) = (input, scratch)
        forRowChunks(rows: pixels, work: pixels * reduction * 4, threads: threads) { begin, end in
            od_im2col_hwc(ip, Int64(height), Int64(width), Int64(inChannels), Int64(window.kernel), Int64(window.stride),
                          Int64(window.padTop), Int64(window.padLeft), Int64(outHeight), Int64(outWidth), sp,
                          Int64(begin), Int64(end))
        }
        pointwise(scratch, pixels: pixels, inChannels: reduction, weight: weight, bias: bias, outChannels: outChannels,
                  clamp: clamp, out: out, threads: threads)
    }

    /// Depthwise k x k convolution; `weight` is (k, k, channels) so each tap's channels are contiguous.
    package static func depthwise(_ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int,
                                  weight: UnsafePointer<Float>, bias: UnsafePointer<Float>?, window: Window,
                                  outHeight: Int, outWidth: Int, clamp: ClosedRange<Float>?,
                                  out: UnsafeMutablePointer<Float>, threads: Int) {
        let (lo, hi) = bounds(clamp)
        nonisolated(unsafe) let (ip, wp, bp, op) = (input, weight, bias, out)
        let work = outHeight * outWidth * channels * window.kernel * window.kernel
        forRowChunks(rows: outHeight, work: work, threads: threads) { begin, end in
            od_depthwise_hwc(ip, Int64(height), Int64(width), Int64(channels), wp, bp, Int64(window.kernel),
                             Int64(window.stride), Int64(window.padTop), Int64(window.padLeft), Int64(outWidth),
                             lo, hi, op, Int64(begin), Int64(end))
        }
    }

    /// out[c] = mean of channel c over `pixels` HWC pixels.
    package static func globalAveragePool(_ input: UnsafePointer<Float>, pixels: Int, channels: Int,
                                          out: UnsafeMutablePointer<Float>) {
        od_global_avg_pool_hwc(input, Int64(pixels), Int64(channels), out)
    }

    private static func bounds(_ clamp: ClosedRange<Float>?) -> (Float, Float) {
        (clamp?.lowerBound ?? -.infinity, clamp?.upperBound ?? .infinity)
    }

    /// Runs `body(begin, end)` over `rows` split in contiguous chunks, one per worker; below
    /// ~256 KFLOP per worker the dispatch costs more than it saves, so small layers stay serial.
    private static func forRowChunks(rows: Int, work: Int, threads: Int, _ body: @Sendable (Int, Int) -> Void) {
        let parts = max(1, min(threads, rows, work / 262_144))
        if parts == 1 { return body(0, rows) }
        ComputePool.run(threads: threads, parts: parts) { part in
            body(rows * part / parts, rows * (part + 1) / parts)
        }
    }
}
