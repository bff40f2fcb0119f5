import CKernels
import Dispatch

/// Direct f32 1-D convolutions (`od_conv1d`) over channels-first buffers, with the time steps
/// split over threads: what the convolution stacks of speech synthesis (VITS, HiFi-GAN) run on.
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

    /// out[o][t] (+)= bias[o] + Σ_k Σ_i w[(o·kernel + k)·inChannels + i] · x[i·inputStride + t + k·dilation]
    /// for t < steps. `input` points at the first tap of step 0 and must be readable up to
    /// step `steps - 1 + (kernel - 1)·dilation` of every channel (the caller pads).
    package static func apply(_ shape: Shape, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                              input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                              outputStride: Int, steps: Int, accumulate: Bool = false, threads: Int = 1) {
        let work = shape.outChannels * shape.inChannels * shape.kernel * steps
        // Whole 16-step blocks per worker; below ~256 K multiply-adds a dispatch costs more than it saves.
        let blocks = (steps + 15) / 16
        let parts = max(1, min(threads, blocks, work / 262_144))
        let (o, i, k, d) = (Int64(shape.outChannels), Int64(shape.inChannels), Int64(shape.kernel), Int64(shape.dilation))
        if parts == 1 {
            od_conv1d(o, i, k, d, weights, bias, input, Int64(inputStride), output, Int64(outputStride), 0, Int64(steps), accumulate ? 1 : 0)
            return
        }
        nonisolated(unsafe) let (w, b, x, y) = (weights, bias, input, output)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let begin = blocks * part / parts * 16, end = min(steps, blocks * (part + 1) / parts * 16)
            od_conv1d(o, i, k, d, w, b, x, Int64(inputStride), y, Int64(outputStride), Int64(begin), Int64(end), accumulate ? 1 : 0)
        }
    }
}
