import CKernels
import Foundation

/// Small elementwise and normalization ops over raw float buffers. Output may alias input.
package enum VectorMath {
    /// out = x / sqrt(mean(x²) + eps) · weight (weight nil → no scaling).
    package static func rmsNorm(_ x: UnsafePointer<Float>, weight: UnsafePointer<Float>?, out: UnsafeMutablePointer<Float>, count: Int, eps: Float) {
        odk_rms_norm(x, weight, out, Int64(count), eps)
    }

    /// x = exp(x - max) / Σ exp(x - max), in place.
    package static func softmax(inPlace x: UnsafeMutablePointer<Float>, count: Int) {
        odk_softmax(x, Int64(count))
    }

    /// out = x · sigmoid(x).
    package static func silu(_ x: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, count: Int) {
        odk_silu(x, out, Int64(count))
    }

    /// GELU, tanh approximation (as ggml's GELU): 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))).
    package static func gelu(_ x: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, count: Int) {
        odk_gelu(x, out, Int64(count))
    }

    /// GELU exactly as llama.cpp's CPU backend evaluates it (ggml `GGML_GELU_FP16`): 0 below -10,
    /// x above 10, otherwise the tanh form at x rounded to f16, with the result rounded to f16.
    /// Use it where outputs should track llama.cpp token for token.
    package static func geluLikeGGML(_ x: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, count: Int) {
        odk_gelu_f16_rounded(x, out, Int64(count))
    }

    /// out = a + b.
    package static func add(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, count: Int) {
        odk_add(a, b, out, Int64(count))
    }

    /// out = a · b.
    package static func mul(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, count: Int) {
        odk_mul(a, b, out, Int64(count))
    }

    /// out += s · x (e.g. attention's weighted sum of value rows).
    package static func addScaled(_ x: UnsafePointer<Float>, _ s: Float, into out: UnsafeMutablePointer<Float>, count: Int) {
        odk_add_scaled(x, s, out, Int64(count))
    }

    /// x *= s, in place.
    /// x = cap · tanh(x / cap) in place: Gemma 2's logit soft-capping.
    package static func softcap(_ x: UnsafeMutablePointer<Float>, count: Int, cap: Float) {
        let inverse = 1 / cap
        for i in 0..<count { x[i] = cap * tanhf(x[i] * inverse) }
    }

    package static func scale(inPlace x: UnsafeMutablePointer<Float>, by s: Float, count: Int) {
        odk_scale(x, s, Int64(count))
    }
}
