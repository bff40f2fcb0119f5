import CKernels
import Tensor

/// Quantizes f32 activations into the format a weight type's integer dot product expects, with
/// ggml's conventions so our results track llama.cpp's: Q8_0 for Q4_0/Q5_0/Q8_0 weights, Q8_1
/// for Q4_1/Q5_1, Q8_K for the K-quants, and plain f32 for F32/F16/BF16 weights.
package enum ActivationQuantizer {
    /// The activation format dotted against `weight` (nil when no kernel exists for it).
    package static func format(for weight: GGMLType) -> GGMLType? {
        let raw = odk_activation_type(Int32(bitPattern: weight.rawValue))
        return raw < 0 ? nil : GGMLType(rawValue: UInt32(raw))
    }

    /// Bytes of one quantized activation row of `cols` elements.
    package static func rowBytes(for weight: GGMLType, cols: Int) -> Int {
        odk_activation_row_bytes(Int32(bitPattern: weight.rawValue), Int64(cols))
    }

    /// Quantizes `cols` floats of `x` into `dst` (`rowBytes(for:cols:)` bytes).
    package static func quantize(for weight: GGMLType, _ x: UnsafePointer<Float>, _ dst: UnsafeMutableRawPointer, cols: Int) {
        precondition(format(for: weight) != nil, "no activation format for \(weight)")
        if let f = format(for: weight) { precondition(cols % f.blockSize == 0, "\(cols) columns are not whole \(f) blocks") }
        odk_quantize_activations(Int32(bitPattern: weight.rawValue), x, dst, Int64(cols))
    }
}
