import CKernels

/// Direct f32 1-D convolutions (`od_conv1d`) over channels-first buffers, with the time steps
/// (or, for short sequences, the output channels) split over threads: what the convolution
/// stacks of speech synthesis (VITS, HiFi-GAN) run on.
package enum Conv1D {
    /// A convolution's shape and its weights, repacked tap-major per output channel.
    package struct Shape: Sendable, Equatable {
        package var outChannels: Int
        package var inChannels: Int
        package var kernel: Int
        package var dilation: Int

        package init(outChannels: Int, inChannels: Int, kernel: Int, dilation: Int) {
            self.outChannels = outChannels
            self.inChannels = inChannels
            self.kernel = kernel
            self.dilation = dilation
        }
    }

    /// out[o][t] (+)= bias[o] + Σ_k Σ_i w[(o·kernel + k)·inChannels + i] · x[i·inputStride + t + k·dilation − padLeft]
    /// for t < steps, where x[i][s] is zero outside 0 ≤ s < inputLength (the padding is implicit).
    /// With `inputSlope` < 1 the input goes through a leaky ReLU of that slope first (fused into
    /// the kernel's input packing). `residual`, laid out like the output, is added to it (a
    /// residual block without a copy). `output` must not overlap `input` or `residual`.
    package static func apply(_ shape: Shape, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                              residual: UnsafePointer<Float>? = nil,
                              input: UnsafePointer<Float>, inputStride: Int, inputLength: Int, padLeft: Int, inputSlope: Float = 1,
                              output: UnsafeMutablePointer<Float>,
                              outputStride: Int, steps: Int, accumulate: Bool = false, threads: Int = 1) {
        apply(shape, weights: weights, bias: bias, residual: residual, input: input, inputStride: inputStride, inputLength: inputLength,
              padLeft: padLeft, inputSlope: inputSlope, output: output, outputStride: outputStride, stepRange: 0..<steps,
              accumulate: accumulate, threads: threads)
    }

    /// The same for output steps `stepRange` only (a chunk of a longer sequence: `output` and
    /// `residual` are indexed by the step itself, `input` by step + k·dilation − padLeft).
    package static func apply(_ shape: Shape, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                              residual: UnsafePointer<Float>? = nil,
                              input: UnsafePointer<Float>, inputStride: Int, inputLength: Int, padLeft: Int, inputSlope: Float = 1,
                              output: UnsafeMutablePointer<Float>,
                              outputStride: Int, stepRange: Range<Int>, accumulate: Bool = false, threads: Int = 1) {
        let steps = stepRange.count, first = stepRange.lowerBound
        guard steps > 0 else { return }
        let work = shape.outChannels * shape.inChannels * shape.kernel * steps
        // Whole 16-step blocks per worker; below ~256 K multiply-adds a dispatch costs more than it saves.
        let blocks = (steps + 15) / 16
        precondition(inputSlope >= 0 && inputSlope <= 1, "leaky ReLU slope")
        let parts = max(1, min(threads, blocks, work / 262_144))
        let (o, i, k, d) = (Int64(shape.outChannels), Int64(shape.inChannels), Int64(shape.kernel), Int64(shape.dilation))
        if parts == 1 {
            od_conv1d(o, i, k, d, Int64(padLeft), inputSlope, weights, bias, residual, input, Int64(inputStride), Int64(inputLength), output,
                      Int64(outputStride), Int64(first), Int64(stepRange.upperBound), accumulate ? 1 : 0)
            return
        }
        nonisolated(unsafe) let (w, b, r, x, y) = (weights, bias, residual, input, output)
        // A short sequence (the text encoder's few dozen phonemes) leaves each thread a block or
        // two of steps while every thread streams all the weights: split the output channels
        // instead, in whole 6-row blocks, so each thread reads only its rows' weights. Each output
        // is summed in the same order either way, so the split does not change the result.
        let rowBlocks = (shape.outChannels + 5) / 6
        if blocks < 4 * parts && rowBlocks >= 2 * parts {
            let rowStride = shape.kernel * shape.inChannels
            ComputePool.run(threads: threads, parts: parts) { part in
                let lo = min(shape.outChannels, rowBlocks * part / parts * 6), hi = min(shape.outChannels, rowBlocks * (part + 1) / parts * 6)
                guard hi > lo else { return }
                od_conv1d(Int64(hi - lo), i, k, d, Int64(padLeft), inputSlope, w + lo * rowStride, b.map { $0 + lo }, r.map { $0 + lo * outputStride },
                          x, Int64(inputStride), Int64(inputLength), y + lo * outputStride, Int64(outputStride),
                          Int64(first), Int64(stepRange.upperBound), accumulate ? 1 : 0)
            }
            return
        }
        ComputePool.run(threads: threads, parts: parts) { part in
            let begin = first + blocks * part / parts * 16, end = min(stepRange.upperBound, first + blocks * (part + 1) / parts * 16)
            od_conv1d(o, i, k, d, Int64(padLeft), inputSlope, w, b, r, x, Int64(inputStride), Int64(inputLength), y, Int64(outputStride),
                      Int64(begin), Int64(end), accumulate ? 1 : 0)
        }
    }
}
