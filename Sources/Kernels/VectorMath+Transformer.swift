import CKernels
import Foundation

/// The encoder–decoder transformer ops Whisper needs beside `VectorMath`'s: layer norm with
/// bias, exact (erf) GELU and row-wise bias adds. Output may alias input.
extension VectorMath {
    /// out[r] = (x[r] - mean) / sqrt(var + eps) · gamma + beta for `rows` rows of `width`.
    package static func layerNorm(_ x: UnsafePointer<Float>, gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>,
                                  out: UnsafeMutablePointer<Float>, rows: Int, width: Int, eps: Float = 1e-5) {
        for r in 0..<rows {
            let row = x + r * width, dst = out + r * width
            var mean: Float = 0
            for i in 0..<width { mean += row[i] }
            mean /= Float(width)
            var variance: Float = 0
            for i in 0..<width {
                let d = row[i] - mean
                variance += d * d
            }
            let inv = 1 / (variance / Float(width) + eps).squareRoot()
            for i in 0..<width { dst[i] = (row[i] - mean) * inv * gamma[i] + beta[i] }
        }
    }

    /// GELU with the exact Gaussian CDF: 0.5x(1 + erf(x/√2)) (PyTorch `nn.GELU()`, what Whisper
    /// was trained with; the tanh form differs by up to ~1e-3). erf to 1.5e-7 (`od_gelu_erf`).
    package static func geluErf(_ x: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, count: Int) {
        od_gelu_erf(x, out, Int64(count))
    }

    /// log Σ exp(x) over `count` floats.
    package static func logSumExp(_ x: UnsafePointer<Float>, count: Int) -> Float {
        od_log_sum_exp(x, Int64(count))
    }

    /// x[r] += bias for `rows` rows of `width`.
    package static func addBias(_ x: UnsafeMutablePointer<Float>, _ bias: UnsafePointer<Float>, rows: Int, width: Int) {
        for r in 0..<rows { add(x + r * width, bias, out: x + r * width, count: width) }
    }
}
