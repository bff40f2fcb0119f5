import CKernels

extension SHA256 {
    /// Which block function runs the rounds.
    package enum Backend: Sendable, Equatable {
        /// x86 SHA extensions (`sha256rnds2`, `sha256msg1/2`) in CKernels.
        case hardware
        /// The Swift rounds in SHA256.swift; every CPU.
        case portable

        /// Whether this CPU has the SHA extensions (checked once, in C, with `cpuid`).
        package static let hardwareAvailable = od_sha256_hw_available() != 0

        /// The fastest backend on this CPU.
        package static var preferred: Backend { hardwareAvailable ? .hardware : .portable }
    }
}
