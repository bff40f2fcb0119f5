import CKernels
import Tensor

/// Single-row dot products of a weight row with an activation row already in the matching
/// activation format (see `ActivationQuantizer`). Exposed for tests and for callers that need
/// one row; bulk work goes through `MatMul`.
package enum VecDot {
    /// The kernel tier in use: the CPU's best (scalar, avx2, avx512, neon, neon-dotprod or
    /// neon-i8mm), capped by the ONDEVICE_KERNELS environment variable.
    package static var tier: String { String(cString: odk_kernel_tier()) }

    /// Whether SIMD kernels (any tier but scalar) are in use on this CPU.
    package static var usesSIMD: Bool { tier != "scalar" }

    /// The best kernel for this CPU.
    package static func dot(_ type: GGMLType, _ w: UnsafeRawPointer, _ act: UnsafeRawPointer, count: Int) -> Float {
        odk_vec_dot(Int32(bitPattern: type.rawValue), Int64(count), w, act)
    }

    /// The portable scalar C kernel.
    package static func dotScalar(_ type: GGMLType, _ w: UnsafeRawPointer, _ act: UnsafeRawPointer, count: Int) -> Float {
        odk_vec_dot_scalar(Int32(bitPattern: type.rawValue), Int64(count), w, act)
    }
}
