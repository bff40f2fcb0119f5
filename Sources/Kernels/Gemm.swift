import CKernels
import Tensor

/// Many-row matrix products through the packed, register-blocked `od_gemm` kernel: what an
/// encoder's 1500-position batches need (`MatMul.linear` walks weight rows against each token
/// with dot products, which suits decoding one to a few tokens).
package enum Gemm {
    /// Where the right-hand matrix's elements are: f32 or f16, and which index is contiguous.
    package struct Operand: @unchecked Sendable {
        /// `@unchecked`: points into storage the caller keeps alive and unchanged during the call.
        package let data: UnsafeRawPointer
        package let rowStride: Int
        package let isHalf: Bool
        /// false: element (output j, reduction p) at j·rowStride + p (a Linear weight);
        /// true: at p·rowStride + j (attention values).
        package let reductionMajor: Bool

        package init(data: UnsafeRawPointer, rowStride: Int, isHalf: Bool, reductionMajor: Bool) {
            self.data = data
            self.rowStride = rowStride
            self.isHalf = isHalf
            self.reductionMajor = reductionMajor
        }

        /// A weight of shape [in, out] (ggml order), F32 or F16.
        package init(weight: TensorView) {
            precondition(weight.type == .f32 || weight.type == .f16, "\(weight.name): gemm takes F32 or F16 weights")
            self.init(data: weight.data, rowStride: weight.rowLength, isHalf: weight.type == .f16, reductionMajor: false)
        }
    }

    /// out[i][j] (+)= Σ_p a[i][p] · B(j, p) for i < rows, j < columns; the columns are split over
    /// `threads` workers in whole 16-column panels.
    package static func multiply(_ a: UnsafePointer<Float>, rows: Int, reduction: Int, lda: Int, b: Operand, columns: Int,
                                 out: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool = false, threads: Int = 1) {
        let panels = (columns + 15) / 16
        // Below ~64 KFLOP per worker the dispatch costs more than it saves.
        let parts = max(1, min(threads, panels, rows * reduction * columns / 65_536))
        let type: Int32 = b.isHalf ? 1 : 0, kmajor: Int32 = b.reductionMajor ? 1 : 0
        if parts == 1 {
            od_gemm(Int64(rows), Int64(columns), Int64(reduction), a, Int64(lda), b.data, Int64(b.rowStride), type, kmajor,
                    out, Int64(ldc), accumulate ? 1 : 0, 0, Int64(columns))
            return
        }
        nonisolated(unsafe) let (ap, op) = (a, out)
        ComputePool.run(threads: threads, parts: parts) { part in
            let begin = panels * part / parts * 16, end = min(columns, panels * (part + 1) / parts * 16)
            od_gemm(Int64(rows), Int64(columns), Int64(reduction), ap, Int64(lda), b.data, Int64(b.rowStride), type, kmajor,
                    op, Int64(ldc), accumulate ? 1 : 0, Int64(begin), Int64(end))
        }
    }
}
