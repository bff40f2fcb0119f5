import CKernels
import Tensor

/// A linear layer's weight quantized once to 16-bit integers, one scale per output row, and
/// packed for the integer encoder GEMM (`od_gemm_i16`, layouts in its header). Products of a
/// batch of tokens with it run at twice the multiply-adds per instruction of f32 FMAs, at about
/// 12 bits per operand (the steps are chosen so every sum is exact in 32 bits).
///
/// `@unchecked Sendable`: the buffers are written once in `init` and only read afterwards.
package final class Int16Linear: @unchecked Sendable {
    /// Outputs (weight rows) and the reduction length.
    package let rows: Int
    package let columns: Int
    /// The most levels each side of zero the activations may use with this weight (the bound
    /// that keeps every integer sum within 32 bits; see od_gemm_i16.h).
    package let activationLevels: Int32
    private let panels: UnsafeMutableRawPointer
    private let rowScales: UnsafeMutablePointer<Float>

    /// Quantizes an F32 or F16 weight of shape [columns, rows] (ggml order: one row per output).
    /// nil for another type or an odd reduction length: the caller keeps the float path.
    package init?(weight: TensorView) {
        guard weight.type == .f32 || weight.type == .f16, weight.rowLength % 2 == 0, weight.rowLength > 0 else { return nil }
        rows = weight.rowCount
        columns = weight.rowLength
        let elements = od_i16_weight_elements(Int64(rows), Int64(columns))
        panels = .allocate(byteCount: max(64, elements * 2), alignment: 64)
        rowScales = .allocate(capacity: rows)
        let type = Int32(bitPattern: weight.type.rawValue)
        activationLevels = od_i16_pack_weights(type, Int64(rows), Int64(columns), weight.data, weight.rowBytes,
                                               panels.assumingMemoryBound(to: Int16.self), rowScales)
        withExtendedLifetime(weight) {}
        guard activationLevels > 0 else {
            panels.deallocate()
            rowScales.deallocate()
            return nil
        }
    }

    deinit {
        panels.deallocate()
        rowScales.deallocate()
    }

    /// out[t · outStride + r] = Σ_k W[r][k] · x[t][k] (+ bias[r]) for the tokens packed in
    /// `tokens`, the 16-row panels split over `threads` workers.
    package func apply(_ tokens: Int16TokenPanels, bias: UnsafePointer<Float>?, out: UnsafeMutablePointer<Float>,
                       outStride: Int, threads: Int) {
        precondition(tokens.columns == columns, "tokens were packed for another reduction length")
        precondition(tokens.levels <= activationLevels, "tokens quantized too finely for this weight's sums")
        let panelCount = (rows + 15) / 16, n = Int64(tokens.count)
        // Below ~100 K weights per worker a dispatch costs more than it saves.
        let parts = max(1, min(threads, panelCount, rows * columns / 100_000))
        nonisolated(unsafe) let (w, s, o) = (panels.assumingMemoryBound(to: Int16.self), rowScales, out)
        let (k, r, stride) = (Int64(columns), Int64(rows), Int64(outStride))
        if parts == 1 {
            od_gemm_i16(k, r, w, s, 0, Int64(panelCount), tokens.panels, tokens.scales, n, bias, o, stride)
            return
        }
        nonisolated(unsafe) let (tp, ts, b) = (tokens.panels, tokens.scales, bias)
        ComputePool.run(threads: threads, parts: parts) { part in
            let begin = panelCount * part / parts, end = panelCount * (part + 1) / parts
            od_gemm_i16(k, r, w, s, Int64(begin), Int64(end), tp, ts, n, b, o, stride)
        }
    }
}

/// A batch of token rows quantized (one scale per token) and packed for `Int16Linear.apply`.
/// Grows to the largest batch and is reused; one user at a time.
package final class Int16TokenPanels {
    package private(set) var count = 0
    package private(set) var columns = 0
    package private(set) var levels: Int32 = 0
    private(set) var panels: UnsafeMutablePointer<Int16>
    private(set) var scales: UnsafeMutablePointer<Float>
    private var panelCapacity = 0, scaleCapacity = 0

    package init() {
        panels = .allocate(capacity: 1)
        scales = .allocate(capacity: 1)
    }

    deinit {
        panels.deallocate()
        scales.deallocate()
    }

    /// Quantizes `count` rows of `columns` floats, `stride` apart, to `levels` levels each side
    /// of zero (at most the `activationLevels` of every weight they will meet).
    package func pack(_ x: UnsafePointer<Float>, count: Int, columns: Int, stride: Int, levels: Int32) {
        let elements = od_i16_token_elements(Int64(count), Int64(columns))
        if elements > panelCapacity {
            panels.deallocate()
            let raw = UnsafeMutableRawPointer.allocate(byteCount: elements * 2, alignment: 64)
            panels = raw.bindMemory(to: Int16.self, capacity: elements)
            panelCapacity = elements
        }
        if count > scaleCapacity {
            scales.deallocate()
            scales = .allocate(capacity: count)
            scaleCapacity = count
        }
        od_i16_pack_tokens(Int64(count), Int64(columns), levels, x, Int64(stride), panels, scales)
        self.count = count
        self.columns = columns
        self.levels = levels
    }
}
