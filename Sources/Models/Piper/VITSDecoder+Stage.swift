import Kernels

/// One HiFi-GAN stage (upsampler, then the mean of its residual blocks) computed chunk by chunk
/// along time, so every intermediate stays in cache instead of making ~10 passes over maps of
/// tens of MB (32 channels × 70 K steps at the last stage), and both threads work on whole chunks
/// with one dispatch per stage. Each chunk recomputes `halo` upsampled steps on either side: the
/// receptive field its deepest residual block reads past the chunk's edges.
///
/// Every output value is computed by the same kernel calls, in the same order of operations, as
/// an unchunked pass, so the output does not depend on chunk size or thread count.
extension VITSDecoder.Stage {
    /// Upsampled steps a block reads beyond its output on either side: the sum of its convs' reaches.
    var halo: Int { blocks.map { $0.reduce(0) { $0 + $1.reach } }.max() ?? 0 }

    /// Output steps per chunk: four (channels, chunk + 2·halo) buffers near 1 MiB, so a chunk's
    /// working set stays in L2/L3 while the halo recomputation stays a few percent; at least one
    /// chunk per thread when the utterance is short (more would only add halo work).
    func chunkLength(length: Int, threads: Int) -> Int {
        let channels = upsample.outChannels
        var chunk = max(256, min(1024, 65_536 / max(1, channels) - 2 * halo)) / 16 * 16
        if threads > 1 {
            let balanced = (length + threads - 1) / threads
            chunk = max(64, min(chunk, (balanced + 15) / 16 * 16))
        }
        return chunk
    }

    /// mean over blocks of the residual chain on upsample(leakyReLU(x, 0.1)): (outChannels, length · stride).
    func callAsFunction(_ x: FeatureMap, threads: Int) -> FeatureMap {
        let channels = upsample.outChannels, length = x.length * upsample.stride
        var out = FeatureMap(uninitializedChannels: channels, length: length)
        let chunk = chunkLength(length: length, threads: threads)
        let chunks = (length + chunk - 1) / chunk
        let parts = max(1, min(threads, chunks))
        let width = chunk + 2 * halo
        x.data.withUnsafeBufferPointer { xp in
            out.data.withUnsafeMutableBufferPointer { op in
                nonisolated(unsafe) let (input, output) = (xp.baseAddress!, op.baseAddress!)
                let work: @Sendable (Int) -> Void = { part in
                    let scratch = ChunkScratch(channels: channels, width: width, stride: upsample.stride)
                    defer { scratch.deallocate() }
                    // Contiguous runs of chunks per thread: each writes long runs of every output row.
                    for c in chunks * part / parts..<chunks * (part + 1) / parts {
                        let begin = c * chunk
                        run(input: input, inputLength: x.length, output: output, length: length,
                            range: begin..<min(length, begin + chunk), scratch: scratch)
                    }
                }
                if parts == 1 { work(0) } else { ComputePool.run(threads: threads, parts: parts) { work($0) } }
            }
        }
        return out
    }

    /// Computes output steps `range` into `output` (channels, length) from the stage input (inChannels, inputLength).
    private func run(input: UnsafePointer<Float>, inputLength: Int, output: UnsafeMutablePointer<Float>, length: Int,
                     range: Range<Int>, scratch: ChunkScratch) {
        let channels = upsample.outChannels, w = scratch.width
        // Every chunk buffer is indexed by global step − base, with row stride w.
        let base = max(0, range.lowerBound - halo), top = min(length, range.upperBound + halo)
        upsampleInto(scratch.upsampled, base: base, top: top, input: input, inputLength: inputLength, scratch: scratch)
        for (b, block) in blocks.enumerated() {
            var source = UnsafePointer(scratch.upsampled)
            var valid = top - base  // steps of `source` holding data, from base
            var remaining = block.reduce(0) { $0 + $1.reach }
            for (k, conv) in block.enumerated() {
                remaining -= conv.reach
                let last = k == block.count - 1
                let lo = max(0, range.lowerBound - remaining), hi = min(length, range.upperBound + remaining)
                let target = last ? scratch.sum : (k % 2 == 0 ? scratch.first : scratch.second)
                conv.withPointers { weights, bias in
                    // Outside [0, valid) the source reads as zero: only at the utterance's ends,
                    // since the halo keeps reads inside the computed range everywhere else.
                    Conv1D.apply(conv.shape, weights: weights, bias: bias, residual: source,
                                 input: source, inputStride: w, inputLength: valid, padLeft: conv.padding, inputSlope: 0.1,
                                 output: target, outputStride: w, stepRange: lo - base..<hi - base,
                                 accumulate: last && b > 0, threads: 1)
                }
                source = UnsafePointer(target)
                valid = hi - base
            }
        }
        let scale = 1 / Float(blocks.count)
        for c in 0..<channels {
            let src = scratch.sum + c * w + (range.lowerBound - base), dst = output + c * length + range.lowerBound
            for t in 0..<range.count { dst[t] = src[t] * scale }
        }
    }

    /// upsampled[c][u − base] for u in [base, top): each polyphase branch of the transposed conv
    /// computed for the input steps whose outputs fall in the range, then interleaved.
    private func upsampleInto(_ upsampled: UnsafeMutablePointer<Float>, base: Int, top: Int, input: UnsafePointer<Float>,
                              inputLength: Int, scratch: ChunkScratch) {
        let up = upsample, s = up.stride, w = scratch.width, pw = scratch.phaseWidth
        let shape = Conv1D.Shape(outChannels: up.outChannels, inChannels: up.inChannels, kernel: up.taps, dilation: 1)
        for (r, phase) in up.phases.enumerated() {
            // Input steps t with base ≤ t·s + r < top.
            let first = (base - r + s - 1) / s, end = (top - r + s - 1) / s
            guard end > first else { continue }
            phase.weights.withUnsafeBufferPointer { wp in
                up.bias.withUnsafeBufferPointer { bp in
                    Conv1D.apply(shape, weights: wp.baseAddress!, bias: bp.baseAddress!, input: input, inputStride: inputLength,
                                 inputLength: inputLength, padLeft: -phase.offset, inputSlope: 0.1,
                                 output: scratch.phase - first, outputStride: pw, stepRange: first..<end, threads: 1)
                }
            }
            for c in 0..<up.outChannels {
                let src = scratch.phase + c * pw, dst = upsampled + c * w + (first * s + r - base)
                for t in 0..<end - first { dst[t * s] = src[t] }
            }
        }
    }
}

/// One worker's buffers for a chunk, each (channels, width) except the phase buffer.
private struct ChunkScratch {
    let width: Int
    let phaseWidth: Int
    let upsampled, first, second, sum, phase: UnsafeMutablePointer<Float>

    init(channels: Int, width: Int, stride: Int) {
        self.width = width
        phaseWidth = width / stride + 2
        upsampled = .allocate(capacity: channels * width)
        first = .allocate(capacity: channels * width)
        second = .allocate(capacity: channels * width)
        sum = .allocate(capacity: channels * width)
        phase = .allocate(capacity: channels * phaseWidth)
    }

    func deallocate() {
        for buffer in [upsampled, first, second, sum, phase] { buffer.deallocate() }
    }
}
