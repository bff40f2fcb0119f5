import CKernels
import Kernels
import Tensor

/// The pairs of a LoRA adapter whose B is F16 (and A F16 or Q8_0) copied into one buffer in the
/// order a token reads them: per layer, per group of matrices that read one input
/// (`LayerMatrix.inputGroups`), the group's A's stacked, then each pair's B as `od_lora_up_f16`
/// reads it (its first out & ~7 rows eight at a time, rank-major within each eight, then the rest
/// as rows). Each A's rank rows are padded with zero rows to a multiple of 8 and laid out as its
/// kernel reads them front to back: F16 in `od_lora_down_f16`'s blocks, Q8_0 in
/// `od_lora_down_q8`'s tiles (eight rows' scales and codes per 32-value block), read against the
/// input quantized to Q8_0 once per group.
///
/// The file's tensors lie wherever the converter put them, each a few cache lines that a token's
/// base weights have long evicted; read one row per call they streamed at about 13 GB/s against
/// 30 for the base. Here a group's A's take one pass of the input, and every kernel reads one
/// sequential stream and prefetches what follows it — the next rows, then the group's B's.
package final class LoRAPacking: @unchecked Sendable {
    /// Where one pair lies in the buffer (byte offsets) and its shape.
    struct Entry {
        let a: Int
        let b: Int
        /// A's type: F16 or Q8_0.
        let aType: GGMLType
        let rank: Int
        /// Rows of A as stacked: the rank rounded up to a multiple of 8.
        let rows: Int
        let inputs: Int
        let outputs: Int

        /// Bytes of one stacked row of A.
        var rowBytes: Int { Self.rowBytes(aType, inputs: inputs) }

        static func rowBytes(_ type: GGMLType, inputs: Int) -> Int { type == .f16 ? inputs * 2 : inputs / 32 * 34 }
    }

    private let bytes: UnsafeMutableRawPointer
    private let entries: UnsafeMutablePointer<Entry?>
    private let entryCount: Int
    /// Bytes of the buffer.
    package let byteCount: Int
    /// The most A rows one group stacks: the width of the scratch a token's A·x needs.
    package let maxStackedRows: Int
    /// Pairs packed.
    package let pairCount: Int

    /// Packs the pairs of `pairs` (by `layer * LayerMatrix.allCases.count + matrix.index`) whose
    /// B is F16 and whose A is F16 with an input a multiple of 16 wide, or Q8_0; nil when there
    /// is none.
    init?(pairs: [LoRAAdapter.Pair?], layerCount: Int) {
        let perLayer = LayerMatrix.allCases.count
        func packable(_ layer: Int, _ m: LayerMatrix) -> LoRAAdapter.Pair? {
            guard let p = pairs[layer * perLayer + m.index], p.b.type == .f16,
                  (p.a.type == .f16 && p.inputs % 16 == 0) || (p.a.type == .q8_0 && p.inputs % 32 == 0) else { return nil }
            return p
        }
        func rows(_ p: LoRAAdapter.Pair) -> Int { (p.rank + 7) & ~7 }
        func lineAligned(_ bytes: Int) -> Int { (bytes + 63) & ~63 }
        var table = [Entry?](repeating: nil, count: pairs.count)
        var size = 0, widest = 0
        for layer in 0..<layerCount {
            for group in LayerMatrix.inputGroups {
                let present = group.compactMap { m in packable(layer, m).map { (m, $0) } }
                func aBytes(_ p: LoRAAdapter.Pair) -> Int { rows(p) * Entry.rowBytes(p.a.type, inputs: p.inputs) }
                widest = max(widest, present.reduce(0) { $0 + rows($1.1) })
                var b = lineAligned(size + present.reduce(0) { $0 + aBytes($1.1) }), a = size
                for (m, p) in present {
                    table[layer * perLayer + m.index] = Entry(a: a, b: b, aType: p.a.type, rank: p.rank, rows: rows(p), inputs: p.inputs,
                                                              outputs: p.outputs)
                    a += aBytes(p)
                    b = lineAligned(b + p.rank * p.outputs * 2)
                }
                size = b
            }
        }
        guard size > 0 else { return nil }
        byteCount = size
        maxStackedRows = widest
        pairCount = table.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        bytes = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        entryCount = table.count
        entries = .allocate(capacity: table.count)
        entries.initialize(from: table, count: table.count)
        for (index, entry) in table.enumerated() {
            guard let e = entry, let p = pairs[index] else { continue }
            if e.aType == .f16 {
                od_lora_pack_a(p.a.data.assumingMemoryBound(to: UInt16.self), Int64(e.inputs), Int64(e.rank),
                               (bytes + e.a).assumingMemoryBound(to: UInt16.self))
            } else {
                od_lora_pack_a_q8(p.a.data.assumingMemoryBound(to: UInt8.self), Int64(e.inputs), Int64(e.rank),
                                  (bytes + e.a).assumingMemoryBound(to: UInt8.self))
            }
            od_lora_pack_b(p.b.data.assumingMemoryBound(to: UInt16.self), Int64(e.rank), Int64(e.outputs),
                           (bytes + e.b).assumingMemoryBound(to: UInt16.self))
        }
    }

    deinit {
        bytes.deallocate()
        entries.deinitialize(count: entryCount)
        entries.deallocate()
    }

    /// The packed pair of `matrix` in `layer`, if it has one.
    func entry(layer: Int, _ matrix: LayerMatrix) -> Entry? {
        entries[layer * LayerMatrix.allCases.count + matrix.index]
    }

    /// outs[i] += multiplier · B·(A·x) for every packed pair among `matrices` of `layer`, which
    /// all read `x` ((n, in) row-major; outs[i] is (n, out of matrices[i])), with the multiplier
    /// of llama.cpp's rule for each pair's rank. A's that lie stacked take one pass of x. `mid`
    /// holds n × `maxStackedRows` floats; `act` holds x quantized to Q8_0 for Q8_0 A's (n rows of
    /// in / 32 · 34 bytes). Tokens split over `threads` when there are enough of them; one token
    /// runs on the caller. Matrices not packed are left to the caller.
    func add(_ matrices: [LayerMatrix], layer: Int, _ x: UnsafePointer<Float>, _ outs: [UnsafeMutablePointer<Float>], n: Int,
             scale: Float, alpha: Float, mid: UnsafeMutablePointer<Float>, act: UnsafeMutableRawPointer, threads: Int) {
        if scale == 0 { return }  // adds nothing, as the unpacked path
        var i = 0
        while i < matrices.count {
            guard let first = entry(layer: layer, matrices[i]) else {
                i += 1
                continue
            }
            // The run of matrices whose A's follow one another: one pass of x for all of them.
            var end = i + 1, rows = first.rows
            while end < matrices.count, let e = entry(layer: layer, matrices[end]), e.aType == first.aType,
                  e.a == first.a + rows * first.rowBytes {
                rows += e.rows
                end += 1
            }
            let run = Run(matrices: i..<end, first: first, rows: rows)
            if threads > 1 && n >= 2 * threads {
                nonisolated(unsafe) let outs = outs, x = x, mid = mid, act = act
                ComputePool.run(threads: threads, parts: threads) { part in
                    self.add(run, matrices, layer: layer, x, outs, tokens: n * part / threads..<n * (part + 1) / threads, scale: scale,
                             alpha: alpha, mid: mid, act: act)
                }
            } else {
                add(run, matrices, layer: layer, x, outs, tokens: 0..<n, scale: scale, alpha: alpha, mid: mid, act: act)
            }
            i = end
        }
    }

    /// Matrices whose A's lie one after another, so one pass of x serves all of them.
    private struct Run {
        let matrices: Range<Int>
        let first: Entry
        /// Their stacked A rows.
        let rows: Int
    }

    /// `add` of one run for `tokens` (mid's rows `run.rows` apart from the range's first token).
    private func add(_ run: Run, _ matrices: [LayerMatrix], layer: Int, _ x: UnsafePointer<Float>, _ outs: [UnsafeMutablePointer<Float>],
                     tokens range: Range<Int>, scale: Float, alpha: Float, mid: UnsafeMutablePointer<Float>, act: UnsafeMutableRawPointer) {
        let first = run.first, t = range.lowerBound, count = Int64(range.count), m = mid + t * run.rows
        if first.aType == .f16 {
            od_lora_down_f16_tokens((bytes + first.a).assumingMemoryBound(to: UInt16.self), Int64(first.inputs), Int64(run.rows),
                                    x + t * first.inputs, Int64(first.inputs), count, m, Int64(run.rows))
        } else {
            // ggml's Q8_0 product: the input quantized to Q8_0, exact integer sums per block;
            // each result rounded to f16 as the F16 B's input.
            let rowBytes = ActivationQuantizer.rowBytes(for: .q8_0, cols: first.inputs)
            for k in range { ActivationQuantizer.quantize(for: .q8_0, x + k * first.inputs, act + k * rowBytes, cols: first.inputs) }
            od_lora_down_q8_tokens((bytes + first.a).assumingMemoryBound(to: UInt8.self), Int64(first.inputs), Int64(run.rows),
                                   act + t * rowBytes, Int64(rowBytes), count, m, Int64(run.rows))
        }
        var offset = 0
        for j in run.matrices {
            guard let e = entry(layer: layer, matrices[j]) else { continue }
            let multiplier = alpha == 0 ? scale : scale * alpha / Float(e.rank)
            // B's last out % 8 rows follow its blocked ones, so one pointer is both: the kernel
            // reads row j ≥ out & ~7 at rows + j · rank.
            let b = (bytes + e.b).assumingMemoryBound(to: UInt16.self)
            od_lora_up_f16_tokens(b, b, m + offset, Int64(run.rows), Int64(e.rank), Int64(e.outputs), count, multiplier,
                                  outs[j] + t * e.outputs, Int64(e.outputs))
            offset += e.rows
        }
    }
}
