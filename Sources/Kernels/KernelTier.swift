import CKernels

/// The SIMD tier the kernels dispatch to on this CPU, after any `ONDEVICE_KERNELS` cap.
package enum KernelTier {
    /// scalar, avx2, avx512, neon, neon-dotprod or neon-i8mm.
    package static var name: String { String(cString: odk_kernel_tier()) }
}
