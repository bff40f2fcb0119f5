import CKernels
import Foundation
import Kernels

/// The graph executor's operator bodies. Convolutions run NCHW on `od_gemm` (weights as the A
/// matrix, activations as a k-major B matrix, so no transpose is needed either way); depthwise
/// filters and pooling are direct loops.
enum GraphKernels {
    @inline(__always) static func exp(_ x: Float) -> Float { Foundation.exp(x) }

    /// (N, C, H, W) of a rank-4 float tensor, or an error naming the node.
    static func nchw(_ x: GraphTensor, node: String) throws(ModelError) -> (Int, Int, Int, Int, [Float]) {
        guard x.shape.count == 4, let values = x.floats else {
            throw .invalidGraphValue(node: node, detail: "expected a float NCHW tensor, got shape \(x.shape)")
        }
        return (x.shape[0], x.shape[1], x.shape[2], x.shape[3], values)
    }

    static func conv(_ x: GraphTensor, _ s: GraphOp.ConvSpec, node: String, threads: Int) throws(ModelError) -> GraphTensor {
        let (n, c, h, w, input) = try nchw(x, node: node)
        guard c == s.groupInChannels * s.group else {
            throw .invalidGraphValue(node: node, detail: "input has \(c) channels, weight expects \(s.groupInChannels * s.group)")
        }
        let oh = (h + s.padTop + s.padBottom - s.kernelH) / s.strideH + 1
        let ow = (w + s.padLeft + s.padRight - s.kernelW) / s.strideW + 1
        guard oh > 0, ow > 0 else { throw .invalidGraphValue(node: node, detail: "input \(h)x\(w) is smaller than the kernel") }
        let co = s.outChannels, pixels = oh * ow
        _ = try checkedCount([n, co, oh, ow], node: node)
        var out = [Float](repeating: 0, count: n * co * pixels)
        let depthwise = s.group == c && s.groupInChannels == 1 && co == c
        guard s.group == 1 || depthwise else {
            throw .unsupportedAttribute(node: node, attribute: "group", value: "\(s.group) (only 1 or depthwise)")
        }
        input.withUnsafeBufferPointer { inBuf in
            s.weight.withUnsafeBufferPointer { wBuf in
                out.withUnsafeMutableBufferPointer { outBuf in
                    nonisolated(unsafe) let (ip, wp, op) = (inBuf.baseAddress!, wBuf.baseAddress!, outBuf.baseAddress!)
                    for b in 0..<n {
                        nonisolated(unsafe) let src = ip + b * c * h * w, dst = op + b * co * pixels
                        if depthwise {
                            depthwiseConv(src, channels: c, h, w, weight: wp, s, oh: oh, ow: ow, out: dst, threads: threads)
                        } else if s.kernelH == 1, s.kernelW == 1, s.strideH == 1, s.strideW == 1,
                                  s.padTop + s.padLeft + s.padBottom + s.padRight == 0 {
                            // out (co × pixels) = weight (co × c) · input (c × pixels)
                            splitColumns(pixels, threads: threads, work: co * c * pixels) { begin, end in
                                od_gemm(Int64(co), Int64(pixels), Int64(c), wp, Int64(c), src, Int64(pixels), 0, 1,
                                        dst, Int64(pixels), 0, Int64(begin), Int64(end))
                            }
                        } else {
                            unfoldedConv(src, channels: c, h, w, weight: wp, s, oh: oh, ow: ow, out: dst, threads: threads)
                        }
                        if let bias = s.bias, !depthwise {
                            for o in 0..<co {
                                let row = dst + o * pixels, value = bias[o]
                                for p in 0..<pixels { row[p] += value }
                            }
                        }
                    }
                }
            }
        }
        return GraphTensor(shape: [n, co, oh, ow], floats: out)
    }

    /// Runs `body(begin, end)` over column ranges of `columns` (multiples of 16), one per thread
    /// when the work is large enough to pay for the split.
    static func splitColumns(_ columns: Int, threads: Int, work: Int, _ body: @Sendable (Int, Int) -> Void) {
        let parts = max(1, min(threads, columns / 16, work / 262_144))
        if parts == 1 { return body(0, columns) }
        ComputePool.run(threads: threads, parts: parts) { part in
            let begin = (columns * part / parts) & ~15
            let end = part == parts - 1 ? columns : (columns * (part + 1) / parts) & ~15
            if end > begin { body(begin, end) }
        }
    }

    /// A k x k (group 1) convolution: tiles of output pixels are unfolded into
    /// (c·kh·kw × tile) columns and multiplied by the weight, so scratch stays small.
    private static func unfoldedConv(_ input: UnsafePointer<Float>, channels c: Int, _ h: Int, _ w: Int,
                                     weight: UnsafePointer<Float>, _ s: GraphOp.ConvSpec, oh: Int, ow: Int,
                                     out: UnsafeMutablePointer<Float>, threads: Int) {
        let pixels = oh * ow, depth = c * s.kernelH * s.kernelW, tile = 512
        let tiles = (pixels + tile - 1) / tile
        let parts = max(1, min(threads, tiles, s.outChannels * depth * pixels / 262_144))
        nonisolated(unsafe) let (ip, wp, op) = (input, weight, out)
        ComputePool.run(threads: threads, parts: parts) { part in
            let cols = UnsafeMutablePointer<Float>.allocate(capacity: depth * tile)  // (depth, tile)
            defer { cols.deallocate() }
            for t in (tiles * part / parts)..<(tiles * (part + 1) / parts) {
                let p0 = t * tile, count = min(tile, pixels - p0)
                for ci in 0..<c {
                    for ky in 0..<s.kernelH {
                        for kx in 0..<s.kernelW {
                            let row = cols + ((ci * s.kernelH + ky) * s.kernelW + kx) * tile
                            for j in 0..<count {
                                let p = p0 + j, oy = p / ow, ox = p - oy * ow
                                let iy = oy * s.strideH - s.padTop + ky, ix = ox * s.strideW - s.padLeft + kx
                                row[j] = iy >= 0 && iy < h && ix >= 0 && ix < w ? ip[(ci * h + iy) * w + ix] : 0
                            }
                        }
                    }
                }
                od_gemm(Int64(s.outChannels), Int64(count), Int64(depth), wp, Int64(depth), cols, Int64(tile), 0, 1,
                        op + p0, Int64(pixels), 0, 0, Int64(count))
            }
        }
    }

    /// One filter per channel, accumulated row by row; channels are split over threads.
    private static func depthwiseConv(_ input: UnsafePointer<Float>, channels c: Int, _ h: Int, _ w: Int,
                                      weight: UnsafePointer<Float>, _ s: GraphOp.ConvSpec, oh: Int, ow: Int,
                                      out: UnsafeMutablePointer<Float>, threads: Int) {
        let parts = max(1, min(threads, c, c * oh * ow * s.kernelH * s.kernelW / 262_144))
        nonisolated(unsafe) let (ip, wp, op) = (input, weight, out)
        let bias = s.bias
        ComputePool.run(threads: threads, parts: parts) { part in
            for ch in (c * part / parts)..<(c * (part + 1) / parts) {
                let plane = ip + ch * h * w, taps = wp + ch * s.kernelH * s.kernelW, dst = op + ch * oh * ow
                let start = bias?[ch] ?? 0
                for oy in 0..<oh {
                    let row = dst + oy * ow
                    for ox in 0..<ow { row[ox] = start }
                    for ky in 0..<s.kernelH {
                        let iy = oy * s.strideH - s.padTop + ky
                        guard iy >= 0, iy < h else { continue }
                        let src = plane + iy * w
                        for kx in 0..<s.kernelW {
                            let tap = taps[ky * s.kernelW + kx], shift = kx - s.padLeft
                            // ox with 0 <= ox·stride + shift < w
                            let first = shift >= 0 ? 0 : (-shift + s.strideW - 1) / s.strideW
                            let last = min(ow - 1, (w - 1 - shift) / s.strideW)
                            guard first <= last else { continue }
                            if s.strideW == 1 {
                                let base = src + shift
                                for ox in first...last { row[ox] += tap * base[ox] }
                            } else {
                                for ox in first...last { row[ox] += tap * src[ox * s.strideW + shift] }
                            }
                        }
                    }
                }
            }
        }
    }

    static func convTranspose(_ x: GraphTensor, _ s: GraphOp.ConvTransposeSpec, node: String, threads: Int) throws(ModelError) -> GraphTensor {
        let (n, c, h, w, input) = try nchw(x, node: node)
        guard c == s.inChannels else { throw .invalidGraphValue(node: node, detail: "input has \(c) channels, weight expects \(s.inChannels)") }
        let oh = (h - 1) * s.strideH - s.padTop - s.padBottom + s.kernelH
        let ow = (w - 1) * s.strideW - s.padLeft - s.padRight + s.kernelW
        guard oh > 0, ow > 0 else { throw .invalidGraphValue(node: node, detail: "empty output for input \(h)x\(w)") }
        let pixels = h * w, rows = s.outChannels * s.kernelH * s.kernelW
        _ = try checkedCount([n, s.outChannels, oh, ow], node: node)
        _ = try checkedCount([rows, pixels], node: node)
        var out = [Float](repeating: 0, count: n * s.outChannels * oh * ow)
        var cols = [Float](repeating: 0, count: rows * pixels)  // (co·kh·kw, h·w)
        for b in 0..<n {
            input.withUnsafeBufferPointer { inBuf in
                s.taps.withUnsafeBufferPointer { tBuf in
                    cols.withUnsafeMutableBufferPointer { cBuf in
                        nonisolated(unsafe) let (ip, tp, cp) = (inBuf.baseAddress! + b * c * pixels, tBuf.baseAddress!, cBuf.baseAddress!)
                        splitColumns(pixels, threads: threads, work: rows * c * pixels) { begin, end in
                            od_gemm(Int64(rows), Int64(pixels), Int64(c), tp, Int64(c), ip, Int64(pixels), 0, 1,
                                    cp, Int64(pixels), 0, Int64(begin), Int64(end))
                        }
                    }
                }
            }
            // Scatter each tap onto the output (col2im), then add the bias.
            let base = b * s.outChannels * oh * ow
            for o in 0..<s.outChannels {
                for ky in 0..<s.kernelH {
                    for kx in 0..<s.kernelW {
                        let row = ((o * s.kernelH + ky) * s.kernelW + kx) * pixels
                        for y in 0..<h {
                            let oy = y * s.strideH - s.padTop + ky
                            guard oy >= 0, oy < oh else { continue }
                            for xx in 0..<w {
                                let ox = xx * s.strideW - s.padLeft + kx
                                guard ox >= 0, ox < ow else { continue }
                                out[base + (o * oh + oy) * ow + ox] += cols[row + y * w + xx]
                            }
                        }
                    }
                }
                if let bias = s.bias {
                    for i in 0..<(oh * ow) { out[base + o * oh * ow + i] += bias[o] }
                }
            }
        }
        return GraphTensor(shape: [n, s.outChannels, oh, ow], floats: out)
    }

    static func pool(_ x: GraphTensor, _ s: GraphOp.PoolSpec, max isMax: Bool, countIncludePad: Bool, node: String) throws(ModelError) -> GraphTensor {
        let (n, c, h, w, input) = try nchw(x, node: node)
        let oh = (h + s.padTop + s.padBottom - s.kernelH) / s.strideH + 1
        let ow = (w + s.padLeft + s.padRight - s.kernelW) / s.strideW + 1
        guard oh > 0, ow > 0 else { throw .invalidGraphValue(node: node, detail: "input \(h)x\(w) is smaller than the window") }
        var out = [Float](repeating: 0, count: n * c * oh * ow)
        for plane in 0..<(n * c) {
            for oy in 0..<oh {
                for ox in 0..<ow {
                    let y0 = oy * s.strideH - s.padTop, x0 = ox * s.strideW - s.padLeft
                    var acc: Float = isMax ? -.infinity : 0, taken = 0
                    // A window wholly inside the padding covers no pixel (empty ranges, not inverted ones).
                    let (ya, yb) = (Swift.max(y0, 0), Swift.max(Swift.min(y0 + s.kernelH, h), Swift.max(y0, 0)))
                    let (xa, xb) = (Swift.max(x0, 0), Swift.max(Swift.min(x0 + s.kernelW, w), Swift.max(x0, 0)))
                    for y in ya..<yb {
                        for xx in xa..<xb {
                            let v = input[(plane * h + y) * w + xx]
                            acc = isMax ? Swift.max(acc, v) : acc + v
                            taken += 1
                        }
                    }
                    if !isMax {
                        let window = countIncludePad
                            ? (Swift.min(y0 + s.kernelH, h + s.padBottom) - y0) * (Swift.min(x0 + s.kernelW, w + s.padRight) - x0)
                            : taken
                        acc /= Float(Swift.max(window, 1))
                    }
                    out[(plane * oh + oy) * ow + ox] = acc
                }
            }
        }
        return GraphTensor(shape: [n, c, oh, ow], floats: out)
    }

    static func globalAveragePool(_ x: GraphTensor, node: String) throws(ModelError) -> GraphTensor {
        let (n, c, h, w, input) = try nchw(x, node: node)
        let area = h * w
        var out = [Float](repeating: 0, count: n * c)
        input.withUnsafeBufferPointer { buf in
            for plane in 0..<(n * c) {
                var sum: Float = 0
                let base = buf.baseAddress! + plane * area
                for i in 0..<area { sum += base[i] }
                out[plane] = sum / Float(area)
            }
        }
        return GraphTensor(shape: [n, c, 1, 1], floats: out)
    }

    static func batchNorm(_ x: GraphTensor, scale: [Float], shift: [Float], node: String) throws(ModelError) -> GraphTensor {
        guard x.shape.count >= 2, x.shape[1] == scale.count, var values = x.floats else {
            throw .invalidGraphValue(node: node, detail: "shape \(x.shape) does not match \(scale.count) channels")
        }
        let channels = x.shape[1], inner = x.shape[2...].reduce(1, *)
        values.withUnsafeMutableBufferPointer { buf in
            for i in 0..<(x.shape[0] * channels) {
                let a = scale[i % channels], b = shift[i % channels], row = buf.baseAddress! + i * inner
                for j in 0..<inner { row[j] = row[j] * a + b }
            }
        }
        return GraphTensor(shape: x.shape, floats: values)
    }

    static func resizeNearest(_ x: GraphTensor, scales: GraphTensor, node: String) throws(ModelError) -> GraphTensor {
        let (n, c, h, w, input) = try nchw(x, node: node)
        guard let factors = scales.floats, factors.count == 4, factors[0] == 1, factors[1] == 1, factors[2] > 0, factors[3] > 0 else {
            throw .unsupportedAttribute(node: node, attribute: "scales", value: "\(scales.floats ?? [])")
        }
        guard factors[2] <= 64, factors[3] <= 64 else {
            throw .unsupportedAttribute(node: node, attribute: "scales", value: "\(factors) (at most 64)")
        }
        let oh = Int((Float(h) * factors[2]).rounded(.down)), ow = Int((Float(w) * factors[3]).rounded(.down))
        _ = try checkedCount([n, c, oh, ow], node: node)
        var out = [Float](repeating: 0, count: n * c * oh * ow)
        let columns = (0..<ow).map { Swift.min(Int((Float($0) / factors[3]).rounded(.down)), w - 1) }
        for plane in 0..<(n * c) {
            for oy in 0..<oh {
                let iy = Swift.min(Int((Float(oy) / factors[2]).rounded(.down)), h - 1)
                let src = (plane * h + iy) * w, dst = (plane * oh + oy) * ow
                for ox in 0..<ow { out[dst + ox] = input[src + columns[ox]] }
            }
        }
        return GraphTensor(shape: [n, c, oh, ow], floats: out)
    }
}
