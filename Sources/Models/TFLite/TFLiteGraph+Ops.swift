import Foundation

/// Kernels of the selfie segmenter's operators; shapes were proven to fit when compiling.
extension TFLiteGraph {
    static func exp(_ x: Float) -> Float { Foundation.exp(x) }

    /// Mean over each window's taps inside the input, divided by the number of those taps (TFLite).
    static func averagePool(_ x: [Float], shape s: [Int], out o: [Int], filter: (Int, Int), stride: (Int, Int), pad: (Int, Int)) -> [Float] {
        let (h, w, c) = (s[1], s[2], s[3])
        var y = [Float](repeating: 0, count: o[1] * o[2] * c)
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeMutableBufferPointer { yp in
                for oy in 0..<o[1] {
                    let y0 = max(oy * stride.0 - pad.0, 0), y1 = min(oy * stride.0 - pad.0 + filter.0, h)
                    for ox in 0..<o[2] {
                        let x0 = max(ox * stride.1 - pad.1, 0), x1 = min(ox * stride.1 - pad.1 + filter.1, w)
                        let dst = (oy * o[2] + ox) * c
                        for iy in y0..<max(y1, y0) {
                            for ix in x0..<max(x1, x0) {
                                let src = (iy * w + ix) * c
                                for ch in 0..<c { yp[dst + ch] += xp[src + ch] }
                            }
                        }
                        let taps = Float(max(y1 - y0, 0) * max(x1 - x0, 0))
                        if taps > 0 { for ch in 0..<c { yp[dst + ch] /= taps } }
                    }
                }
            }
        }
        return y
    }

    /// a · b broadcast to `out` (shapes left-filled with 1s to rank 4), then the clamp.
    static func mul(_ a: [Float], _ sa: [Int], _ b: [Float], _ sb: [Int], out so: [Int], clamp: ClosedRange<Float>?) -> [Float] {
        let lo = clamp?.lowerBound ?? -.infinity, hi = clamp?.upperBound ?? .infinity
        func padded(_ s: [Int]) -> [Int] { [Int](repeating: 1, count: 4 - s.count) + s }
        let pa = padded(sa), pb = padded(sb), o = padded(so)
        /// Element strides, 0 along broadcast axes.
        func strides(_ p: [Int]) -> [Int] {
            var st = [Int](repeating: 0, count: 4), step = 1
            for d in (0..<4).reversed() {
                st[d] = p[d] == 1 ? 0 : step
                step *= p[d]
            }
            return st
        }
        let ta = strides(pa), tb = strides(pb)
        var y = [Float](repeating: 0, count: o.reduce(1, *))
        a.withUnsafeBufferPointer { ap in
            b.withUnsafeBufferPointer { bp in
                y.withUnsafeMutableBufferPointer { yp in
                    var k = 0
                    for n in 0..<o[0] {
                        for i in 0..<o[1] {
                            for j in 0..<o[2] {
                                let baseA = n * ta[0] + i * ta[1] + j * ta[2], baseB = n * tb[0] + i * tb[1] + j * tb[2]
                                for c in 0..<o[3] {
                                    yp[k] = min(max(ap[baseA + c * ta[3]] * bp[baseB + c * tb[3]], lo), hi)
                                    k += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        return y
    }

    /// TFLite's RESIZE_BILINEAR: source coordinate `d · scale` (or `(d + 0.5) · scale − 0.5` with
    /// half-pixel centres), scale `in / out` (or `(in − 1) / (out − 1)` with aligned corners), all in
    /// float32; the lower neighbour is `max(floor, 0)`, the upper `min(ceil, in − 1)`, and the weights
    /// are the distances to the lower neighbour.
    static func resizeBilinear(_ x: [Float], shape s: [Int], out o: [Int], alignCorners: Bool, halfPixelCenters: Bool) -> [Float] {
        let (h, w, c) = (s[1], s[2], s[3])
        func scale(_ input: Int, _ output: Int) -> Float {
            alignCorners && output > 1 ? Float(input - 1) / Float(output - 1) : Float(input) / Float(output)
        }
        func taps(_ output: Int, _ input: Int) -> [(lower: Int, upper: Int, t: Float)] {
            let sc = scale(input, output)
            return (0..<output).map { d in
                let v = halfPixelCenters ? (Float(d) + 0.5) * sc - 0.5 : Float(d) * sc
                let lower = max(Int(v.rounded(.down)), 0), upper = min(Int(v.rounded(.up)), input - 1)
                return (lower, upper, v - Float(lower))
            }
        }
        let rows = taps(o[1], h), cols = taps(o[2], w)
        var y = [Float](repeating: 0, count: o[1] * o[2] * c)
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeMutableBufferPointer { yp in
                for (oy, r) in rows.enumerated() {
                    for (ox, q) in cols.enumerated() {
                        let dst = (oy * o[2] + ox) * c
                        let tl = (r.lower * w + q.lower) * c, tr = (r.lower * w + q.upper) * c
                        let bl = (r.upper * w + q.lower) * c, br = (r.upper * w + q.upper) * c
                        for ch in 0..<c {
                            yp[dst + ch] = xp[tl + ch] * (1 - r.t) * (1 - q.t) + xp[bl + ch] * r.t * (1 - q.t)
                                + xp[tr + ch] * (1 - r.t) * q.t + xp[br + ch] * r.t * q.t
                        }
                    }
                }
            }
        }
        return y
    }

    /// Transposed convolution: every input pixel scatters `input · weight` into the output window
    /// it maps to (taps outside the output are dropped), then the bias is added.
    static func transposeConv(_ x: [Float], shape s: [Int], out o: [Int], weight: [Float], bias: [Float],
                              kernel: (Int, Int), stride: (Int, Int), pad: (Int, Int)) -> [Float] {
        let (h, w, ci) = (s[1], s[2], s[3]), (oh, ow, co) = (o[1], o[2], o[3])
        var y = [Float](repeating: 0, count: oh * ow * co)
        x.withUnsafeBufferPointer { xp in
            weight.withUnsafeBufferPointer { wp in
                y.withUnsafeMutableBufferPointer { yp in
                    for iy in 0..<h {
                        for ix in 0..<w {
                            let src = (iy * w + ix) * ci
                            for ky in 0..<kernel.0 {
                                let oy = iy * stride.0 - pad.0 + ky
                                guard oy >= 0, oy < oh else { continue }
                                for kx in 0..<kernel.1 {
                                    let ox = ix * stride.1 - pad.1 + kx
                                    guard ox >= 0, ox < ow else { continue }
                                    let dst = (oy * ow + ox) * co
                                    for oc in 0..<co {
                                        let wBase = ((oc * kernel.0 + ky) * kernel.1 + kx) * ci
                                        var acc: Float = 0
                                        for c in 0..<ci { acc += xp[src + c] * wp[wBase + c] }
                                        yp[dst + oc] += acc
                                    }
                                }
                            }
                        }
                    }
                    for p in 0..<(oh * ow) {
                        for oc in 0..<co { yp[p * co + oc] += bias[oc] }
                    }
                }
            }
        }
        return y
    }
}
