import CKernels
import Dispatch
import Tensor

/// Per-session matrix multiply against quantized weights. Owns its activation scratch, so the
/// steady state allocates nothing; not for sharing between concurrent sessions.
///
/// Activations are quantized once per call (see `ActivationQuantizer`); weight rows are split
/// into one contiguous range per thread, and each range is a single C call that walks its rows
/// in small blocks against every token, so prefill reads each weight row once, not once per token.
package final class MatMul {
    /// Worker count for the row split (1 runs inline on the caller's thread).
    package var threads: Int {
        didSet { precondition(threads >= 1, "threads must be at least 1") }
    }

    /// Quantized activations, (n, actRowBytes) bytes; grows on demand, never shrinks.
    private var scratch: UnsafeMutableRawPointer?
    private var scratchBytes = 0

    /// Weight bytes each parallel task must get: below it, dispatch costs more than it saves.
    /// Tests lower it to exercise the split on small matrices.
    package var minBytesPerTask = 64 * 1024

    /// Tasks per thread. `concurrentPerform` hands tasks out as threads become free, so with a
    /// few per thread a worker that starts late (a busy neighbour core) costs little.
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
        let act: UnsafeRawPointer
        if actFormat == .f32 {
            act = UnsafeRawPointer(x)
        } else {
            let buffer = scratch(bytes: actRowBytes * n)
            for t in 0..<n { odk_quantize_activations(typeID, x + t * cols, buffer + t * actRowBytes, Int64(cols)) }
            act = UnsafeRawPointer(buffer)
        }

        let parts = threads == 1 ? 1 : min(threads * Self.tasksPerThread, rows * wRowBytes / max(1, minBytesPerTask), rows / 4)
        if parts <= 1 {
            odk_matmul_rows(typeID, Int64(cols), w.data, wRowBytes, 0, Int64(rows),
                            act, actRowBytes, Int64(n), out, Int64(rows))
            return
        }
        nonisolated(unsafe) let wData = w.data
        nonisolated(unsafe) let actData = act
        nonisolated(unsafe) let outData = out
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            // Boundaries on multiples of 4 keep the four-row kernels on whole groups.
            let begin = (rows * part / parts) & ~3
            let end = part == parts - 1 ? rows : (rows * (part + 1) / parts) & ~3
            odk_matmul_rows(typeID, Int64(cols), wData, wRowBytes, Int64(begin), Int64(end),
                            actData, actRowBytes, Int64(n), outData, Int64(rows))
        }
        withExtendedLifetime(w) {}
    }

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
