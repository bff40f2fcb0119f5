import CKernels
import Tensor

/// Per-session matrix multiply against quantized weights. Owns its activation scratch, so the
/// steady state allocates nothing; not for sharing between concurrent sessions.
///
/// Activations are quantized once per call (see `ActivationQuantizer`); weight rows are split
/// into a few contiguous ranges per thread, and each range is a single C call. One token runs
/// the four-row matrix-vector kernels; a prompt batch walks each range in row tiles against
/// every token (the quantized formats through an integer GEMM on decoded tiles), so prefill
/// reads each weight row once, not once per token.
package final class MatMul {
    /// Worker count for the row split (1 runs inline on the caller's thread).
    package var threads: Int {
        didSet { precondition(threads >= 1, "threads must be at least 1") }
    }

    /// Quantized activations (n, actRowBytes), then the GEMM panel (n, panelRowBytes) and one
    /// decoded weight tile per task; grows on demand, never shrinks.
    private var scratch: UnsafeMutableRawPointer?
    private var scratchBytes = 0

    /// Weight bytes each parallel task must get: below it, dispatch costs more than it saves.
    /// Tests lower it to exercise the split on small matrices.
    package var minBytesPerTask = 64 * 1024

    /// Prompt batches at least this long take the GEMM path (decode each weight tile once, then
    /// a 2-row x 4-token integer microkernel, AVX2 or AVX-512 VNNI by tier); shorter ones reuse
    /// the matrix-vector kernels.
    package static let gemmMinTokens = 4

    /// A step of the decode batcher (tokens of one or several sequences) sets `gemmFromRows` to
    /// this, and then keeps to the matrix-vector kernels up to the row count the kernel tier
    /// gives for the weight type (`odk_decode_step_gemm_tokens`): on x86 the batched kernels add
    /// each weight group to eight tokens at once and beat the GEMM's per-call tile decoding up
    /// to 8-128 tokens by type and tier, at any count on Q4_1 and Q5_1 (whose tiles are decoded by
    /// scalar code); elsewhere the per-token kernels pass each L1-sized block of weight rows
    /// over every token and beat it up to 24. A pass outside the batcher (all-token logits)
    /// keeps `gemmMinTokens`.
    package static let decodeStepMatrixVectorRows = 24

    /// The fewest rows that take the GEMM path in this product; `gemmMinTokens` unless a
    /// batched decode step raised it.
    package var gemmFromRows = MatMul.gemmMinTokens

    /// Tasks per thread. The pool hands tasks out as threads become free, so with a few per
    /// thread a worker that starts late (a busy neighbour core) costs little.
    private static let tasksPerThread = 4

    package init(threads: Int) {
        precondition(threads >= 1, "threads must be at least 1")
        self.threads = threads
    }

    deinit { scratch?.deallocate() }

    /// out[t*rows + r] = dot(W row r, x[t*cols ..< (t+1)*cols]) for t in 0..<n.
    ///
    /// `w` has shape [cols, rows] (ggml order); `x` is (n, cols) f32 row-major; `out` is (n, rows)
    /// and must not overlap `x`. Shapes are checked with preconditions (programmer errors: the
    /// model layer validates tensors at load).
    package func linear(_ w: TensorView, _ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, n: Int) {
        let type = w.type
        let cols = w.rowLength, rows = w.rowCount
        guard let actFormat = ActivationQuantizer.format(for: type) else {
            preconditionFailure("no matmul kernel for \(type) (tensor \(w.name))")
        }
        precondition(n >= 1, "linear needs at least one token")
        precondition(cols % type.blockSize == 0 && cols % actFormat.blockSize == 0,
                     "\(w.name): \(cols) columns are not whole \(type)/\(actFormat) blocks")
        let wRowBytes = w.rowBytes
        precondition(w.byteCount >= rows * wRowBytes, "\(w.name): \(w.byteCount) bytes < \(rows) rows × \(wRowBytes)")

        let typeID = Int32(bitPattern: type.rawValue)
        let actRowBytes = ActivationQuantizer.rowBytes(for: type, cols: cols)
        // odk_has_avx2 also holds on the avx512 tier, where odk_gemm_* run the AVX-512 VNNI form
        // (which also takes Q8_0), so this picks the GEMM of whichever x86 tier is in use.
        // A batched decode step's raised threshold is the kernel tier's, by weight type.
        let fromRows = gemmFromRows > Self.gemmMinTokens
            ? max(Self.gemmMinTokens, Int(odk_decode_step_gemm_tokens(typeID))) : gemmFromRows
        let useGEMM = n >= fromRows && odk_has_avx2() != 0 && odk_gemm_supports(typeID) != 0
        // Work grows with n, so prompt batches split into more tasks than single tokens.
        let parts = Self.parts(threads: threads, bytes: rows * wRowBytes * n, minBytes: minBytesPerTask, rows: rows)

        // Scratch regions, each 64-byte aligned: quantized activations (n, actRowBytes), the GEMM
        // panel (n, panelRowBytes) or the batched matrix-vector kernels' token panel (filled
        // once here, not by every task), then one decoded weight tile per task.
        let panelRowBytes = useGEMM ? odk_gemm_panel_row_bytes(Int64(cols)) : 0
        let batchPanelBytes = useGEMM ? 0 : odk_batch_panel_bytes(typeID, Int64(cols), Int64(n))
        let tileBytes = useGEMM ? odk_gemm_scratch_bytes(Int64(cols)) : 0
        let actBytes = actFormat == .f32 ? 0 : Self.aligned(actRowBytes * n)
        let panelBytes = Self.aligned(useGEMM ? panelRowBytes * n : batchPanelBytes)
        let buffer = scratch(bytes: actBytes + panelBytes + max(1, parts) * tileBytes)

        let act: UnsafeRawPointer
        if actFormat == .f32 {
            act = UnsafeRawPointer(x)
        } else {
            for t in 0..<n { odk_quantize_activations(typeID, x + t * cols, buffer + t * actRowBytes, Int64(cols)) }
            act = UnsafeRawPointer(buffer)
        }
        if useGEMM { odk_gemm_prepare(typeID, Int64(cols), act, actRowBytes, Int64(n), buffer + actBytes) }
        let batched = batchPanelBytes > 0
        if batched { odk_batch_fill_panel(typeID, Int64(cols), act, actRowBytes, Int64(n), buffer + actBytes) }

        nonisolated(unsafe) let wData = w.data
        nonisolated(unsafe) let actData = act
        nonisolated(unsafe) let panel = UnsafeRawPointer(buffer + actBytes)
        nonisolated(unsafe) let tiles = buffer + actBytes + panelBytes
        nonisolated(unsafe) let outData = out
        let run = { @Sendable (part: Int, begin: Int, end: Int) in
            if useGEMM {
                odk_gemm_rows(typeID, Int64(cols), wData, wRowBytes, Int64(begin), Int64(end), panel, Int64(n),
                              outData, Int64(rows), tiles + part * tileBytes)
            } else if batched {
                odk_batch_rows(typeID, Int64(cols), wData, wRowBytes, Int64(begin), Int64(end), panel, Int64(n),
                               outData, Int64(rows))
            } else {
                odk_matmul_rows(typeID, Int64(cols), wData, wRowBytes, Int64(begin), Int64(end),
                                actData, actRowBytes, Int64(n), outData, Int64(rows))
            }
        }
        if parts <= 1 {
            run(0, 0, rows)
        } else {
            ComputePool.run(threads: threads, parts: parts) { part in
                // Boundaries on multiples of 4 keep the four-row kernels on whole groups.
                let begin = (rows * part / parts) & ~3
                let end = part == parts - 1 ? rows : (rows * (part + 1) / parts) & ~3
                run(part, begin, end)
            }
        }
        withExtendedLifetime(w) {}
    }

    /// outs[i] = ws[i] · x for matrices that read the same input (a layer's query, key and
    /// value; its gate and up), each as `linear(_:_:_:n:)` gives it.
    ///
    /// One token on several threads runs as one job: the input is quantized once per activation
    /// format, and the rows of all the matrices are split into shares of equal weight bytes, a
    /// multiple of the thread count. A job per matrix cost a start and a wait each, and left the
    /// small ones to the caller alone (SmolLM2's 192-row keys and values: 69 KB, one task).
    /// Share boundaries fall on four-row groups from each matrix's start, so every row goes
    /// through the kernel its own call gives it and the outputs are the same bit for bit.
    package func linear(_ ws: [TensorView], _ x: UnsafePointer<Float>, _ outs: [UnsafeMutablePointer<Float>], n: Int) {
        precondition(ws.count == outs.count, "one output per matrix")
        let cols = ws.first?.rowLength ?? 0
        let bytes = ws.reduce(0) { $0 + $1.rowCount * $1.rowBytes }
        let parts = Self.parts(threads: threads, bytes: bytes, minBytes: minBytesPerTask, rows: ws.reduce(0) { $0 + $1.rowCount })
        let shareable = ws.allSatisfy { w in
            w.rowLength == cols && ActivationQuantizer.format(for: w.type) != nil && w.byteCount >= w.rowCount * w.rowBytes
                && cols % w.type.blockSize == 0
        }
        guard n == 1, threads > 1, ws.count > 1, parts >= threads, shareable else {
            for (w, out) in zip(ws, outs) { linear(w, x, out, n: n) }
            return
        }
        // One quantized input per activation format (Q4_0, Q5_0 and Q8_0 weights share Q8_0's).
        var inputs: [(format: GGMLType, weight: GGMLType, offset: Int)] = [], total = 0
        for w in ws {
            let f = ActivationQuantizer.format(for: w.type)!
            if f == .f32 || inputs.contains(where: { $0.format == f }) { continue }
            inputs.append((f, w.type, total))
            total += Self.aligned(ActivationQuantizer.rowBytes(for: w.type, cols: cols))
        }
        let buffer = scratch(bytes: max(total, 1))
        for i in inputs { ActivationQuantizer.quantize(for: i.weight, x, buffer + i.offset, cols: cols) }
        var segments: [Segment] = [], start = 0
        for (w, out) in zip(ws, outs) {
            let f = ActivationQuantizer.format(for: w.type)!
            let act = f == .f32 ? UnsafeRawPointer(x) : UnsafeRawPointer(buffer + inputs.first { $0.format == f }!.offset)
            segments.append(Segment(type: Int32(bitPattern: w.type.rawValue), weights: w.data, rowBytes: w.rowBytes, rows: w.rowCount,
                                    act: act, actRowBytes: ActivationQuantizer.rowBytes(for: w.type, cols: cols), out: out, start: start))
            start += w.rowCount * w.rowBytes
        }
        nonisolated(unsafe) let shared = segments
        let width = Int64(cols)
        ComputePool.run(threads: threads, parts: parts) { part in
            let lo = bytes * part / parts, hi = bytes * (part + 1) / parts
            for s in shared {
                let begin = s.row(atByte: lo), end = s.row(atByte: hi)
                if end > begin {
                    odk_matmul_rows(s.type, width, s.weights, s.rowBytes, Int64(begin), Int64(end), s.act, s.actRowBytes, 1, s.out, Int64(s.rows))
                }
            }
        }
        withExtendedLifetime(ws) {}
    }

    /// One matrix of a shared-input call, at `start` bytes into the rows of all of them.
    private struct Segment {
        let type: Int32
        let weights: UnsafeRawPointer
        let rowBytes: Int
        let rows: Int
        let act: UnsafeRawPointer
        let actRowBytes: Int
        let out: UnsafeMutablePointer<Float>
        let start: Int

        /// The first row at or past `byte` of the whole, on a four-row group (all rows at the end).
        func row(atByte byte: Int) -> Int {
            let offset = byte - start
            if offset <= 0 { return 0 }
            if offset >= rows * rowBytes { return rows }
            return min(rows, (offset / rowBytes) & ~3)
        }
    }

    /// Tasks for a row split of `bytes` of weights: up to `tasksPerThread` per thread, none
    /// under `minBytes`, none under four rows, and a multiple of the thread count once there
    /// are that many (three tasks on two threads kept one of them idle a third of the time).
    private static func parts(threads: Int, bytes: Int, minBytes: Int, rows: Int) -> Int {
        if threads == 1 { return 1 }
        let tasks = min(threads * tasksPerThread, bytes / max(1, minBytes), rows / 4)
        return tasks < threads ? tasks : tasks / threads * threads
    }

    private static func aligned(_ bytes: Int) -> Int { (bytes + 63) & ~63 }

    private func scratch(bytes: Int) -> UnsafeMutableRawPointer {
        if let scratch, scratchBytes >= bytes { return scratch }
        scratch?.deallocate()
        let grown = max(bytes, scratchBytes * 2)
        let p = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 64)
        scratch = p
        scratchBytes = grown
        return p
    }
}
