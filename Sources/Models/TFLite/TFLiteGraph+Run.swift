import Kernels

extension TFLiteGraph {
    /// Runs the graph on one input (`input` holds the input tensor's values, NHWC) and returns
    /// the output tensors' values in the graph's output order.
    package func run(_ input: [Float], threads: Int) throws(ModelError) -> [[Float]] {
        let expected = shapes[self.input].reduce(1, *)
        guard input.count == expected else {
            throw .shapeMismatch(tensor: tensorNames[self.input], expected: shapes[self.input], found: [input.count])
        }
        var values = [[Float]?](repeating: nil, count: shapes.count)
        values[self.input] = input
        // Compiling proved that every operand is the input, a constant or an earlier output.
        func value(_ t: Int) -> [Float] {
            guard let v = values[t] ?? constants[t] else { preconditionFailure("tensor \(t) read before it is written") }
            return v
        }
        for (index, step) in steps.enumerated() {
            let out = step.output
            let count = shapes[out].reduce(1, *)
            switch step {
            case let .conv(i, _, weight, bias, window, clamp):
                let s = shapes[i], o = shapes[out]
                let x = value(i)
                values[out] = Self.filled(count) { op in
                    x.withUnsafeBufferPointer { xp in
                        weight.withUnsafeBufferPointer { wp in
                            Self.withOptional(bias) { bp in
                                if window.kernel == 1, window.stride == 1 {
                                    Convolution.pointwise(xp.baseAddress!, pixels: s[1] * s[2], inChannels: s[3], weight: wp.baseAddress!,
                                                          bias: bp, outChannels: o[3], clamp: clamp, out: op, threads: threads)
                                } else {
                                    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: o[1] * o[2] * window.kernel * window.kernel * s[3])
                                    defer { scratch.deallocate() }
                                    Convolution.conv2d(xp.baseAddress!, height: s[1], width: s[2], inChannels: s[3], weight: wp.baseAddress!,
                                                       bias: bp, outChannels: o[3], window: window, outHeight: o[1], outWidth: o[2],
                                                       clamp: clamp, scratch: scratch, out: op, threads: threads)
                                }
                            }
                        }
                    }
                }
            case let .depthwise(i, _, weight, bias, window, clamp):
                let s = shapes[i], o = shapes[out]
                let x = value(i)
                values[out] = Self.filled(count) { op in
                    x.withUnsafeBufferPointer { xp in
                        weight.withUnsafeBufferPointer { wp in
                            Self.withOptional(bias) { bp in
                                Convolution.depthwise(xp.baseAddress!, height: s[1], width: s[2], channels: s[3], weight: wp.baseAddress!,
                                                      bias: bp, window: window, outHeight: o[1], outWidth: o[2], clamp: clamp,
                                                      out: op, threads: threads)
                            }
                        }
                    }
                }
            case let .maxPool(i, _, fh, fw, sh, sw, top, left):
                values[out] = Self.maxPool(value(i), shape: shapes[i], out: shapes[out], filter: (fh, fw), stride: (sh, sw), pad: (top, left))
            case let .pad(i, _, before, after):
                values[out] = Self.pad(value(i), shape: shapes[i], before: before, after: after, count: count)
            case let .add(a, b, _, clamp):
                values[out] = Self.add(value(a), value(b), clamp: clamp)
            case let .relu(i, _):
                values[out] = value(i).map { max($0, 0) }
            case let .prelu(i, _, alpha):
                var x = value(i)
                let channels = alpha.count
                x.withUnsafeMutableBufferPointer { p in
                    for start in stride(from: 0, to: p.count, by: channels) {
                        for c in 0..<channels where p[start + c] < 0 { p[start + c] *= alpha[c] }
                    }
                }
                values[out] = x
            case let .concat(inputs, _, axis):
                let outer = shapes[out][..<axis].reduce(1, *)
                var result: [Float] = []
                result.reserveCapacity(count)
                let parts = inputs.map { (value($0), shapes[$0][axis...].reduce(1, *)) }
                for o in 0..<outer {
                    for (data, chunk) in parts { result += data[(o * chunk)..<((o + 1) * chunk)] }
                }
                values[out] = result
            case let .copy(i, _):
                values[out] = value(i)
            case let .averagePool(i, _, fh, fw, sh, sw, top, left):
                values[out] = Self.averagePool(value(i), shape: shapes[i], out: shapes[out], filter: (fh, fw), stride: (sh, sw), pad: (top, left))
            case let .hardSwish(i, _):
                values[out] = value(i).map { x in x * min(max(x + 3, 0), 6) / 6 }
            case let .logistic(i, _):
                values[out] = value(i).map { x in 1 / (1 + Self.exp(-x)) }
            case let .mul(a, b, _, clamp):
                values[out] = Self.mul(value(a), shapes[a], value(b), shapes[b], out: shapes[out], clamp: clamp)
            case let .resizeBilinear(i, _, alignCorners, halfPixel):
                values[out] = Self.resizeBilinear(value(i), shape: shapes[i], out: shapes[out], alignCorners: alignCorners, halfPixelCenters: halfPixel)
            case let .transposeConv(i, _, weight, bias, kh, kw, sh, sw, top, left):
                values[out] = Self.transposeConv(value(i), shape: shapes[i], out: shapes[out], weight: weight, bias: bias,
                                                 kernel: (kh, kw), stride: (sh, sw), pad: (top, left))
            }
            for t in released[index] { values[t] = nil }
        }
        return outputs.map { value($0) }
    }

    /// An array of `count` floats written by `body` (no zero fill).
    static func filled(_ count: Int, _ body: (UnsafeMutablePointer<Float>) -> Void) -> [Float] {
        [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            body(buffer.baseAddress!)
            initialized = count
        }
    }

    static func withOptional<R>(_ values: [Float]?, _ body: (UnsafePointer<Float>?) -> R) -> R {
        guard let values else { return body(nil) }
        return values.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// Max over each window's taps inside the input (taps in the padding are skipped, as TFLite does).
    static func maxPool(_ x: [Float], shape s: [Int], out o: [Int], filter: (Int, Int), stride: (Int, Int), pad: (Int, Int)) -> [Float] {
        let (h, w, c) = (s[1], s[2], s[3])
        var y = [Float](repeating: -.infinity, count: o[1] * o[2] * c)
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeMutableBufferPointer { yp in
                for oy in 0..<o[1] {
                    for ox in 0..<o[2] {
                        let dst = (oy * o[2] + ox) * c
                        for ky in 0..<filter.0 {
                            let iy = oy * stride.0 - pad.0 + ky
                            guard iy >= 0, iy < h else { continue }
                            for kx in 0..<filter.1 {
                                let ix = ox * stride.1 - pad.1 + kx
                                guard ix >= 0, ix < w else { continue }
                                let src = (iy * w + ix) * c
                                for ch in 0..<c { yp[dst + ch] = max(yp[dst + ch], xp[src + ch]) }
                            }
                        }
                    }
                }
            }
        }
        return y
    }

    /// Zero padding of a tensor of rank ≤ 4 (`before`/`after` given for the 4-D shape).
    static func pad(_ x: [Float], shape: [Int], before: [Int], after: [Int], count: Int) -> [Float] {
        let s = [Int](repeating: 1, count: 4 - shape.count) + shape
        let o = (0..<4).map { s[$0] + before[$0] + after[$0] }
        var y = [Float](repeating: 0, count: count)
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeMutableBufferPointer { yp in
                for n in 0..<s[0] {
                    for i in 0..<s[1] {
                        for j in 0..<s[2] {
                            let src = ((n * s[1] + i) * s[2] + j) * s[3]
                            let dst = (((n + before[0]) * o[1] + i + before[1]) * o[2] + j + before[2]) * o[3] + before[3]
                            for k in 0..<s[3] { yp[dst + k] = xp[src + k] }
                        }
                    }
                }
            }
        }
        return y
    }

    /// a + b with b the same size as a, one value per channel, or one value; then the clamp.
    static func add(_ a: [Float], _ b: [Float], clamp: ClosedRange<Float>?) -> [Float] {
        let lo = clamp?.lowerBound ?? -.infinity, hi = clamp?.upperBound ?? .infinity
        var y = a
        y.withUnsafeMutableBufferPointer { yp in
            b.withUnsafeBufferPointer { bp in
                let period = bp.count
                if period == yp.count {
                    for i in 0..<yp.count { yp[i] = min(max(yp[i] + bp[i], lo), hi) }
                } else {
                    for i in 0..<yp.count { yp[i] = min(max(yp[i] + bp[i % period], lo), hi) }
                }
            }
        }
        return y
    }
}
