import CKernels
import Foundation
import Kernels
import Testing

private func apply(_ x: [Float], _ f: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void) -> [Float] {
    var out = [Float](repeating: .nan, count: x.count)
    x.withUnsafeBufferPointer { xp in out.withUnsafeMutableBufferPointer { f(xp.baseAddress!, $0.baseAddress!, x.count) } }
    return out
}

@Test func `rmsNorm scales to unit root mean square and applies the weight`() {
    var rng = TestRandom(seed: 600)
    let x = rng.activations(576), weight = rng.activations(576)
    let ms = x.reduce(0.0) { $0 + Double($1) * Double($1) } / 576
    let inv = 1 / (ms + 1e-5).squareRoot()
    let plain = apply(x) { VectorMath.rmsNorm($0, weight: nil, out: $1, count: $2, eps: 1e-5) }
    let weighted = weight.withUnsafeBufferPointer { wp in
        apply(x) { VectorMath.rmsNorm($0, weight: wp.baseAddress!, out: $1, count: $2, eps: 1e-5) }
    }
    for i in 0..<576 {
        #expect(abs(Double(plain[i]) - Double(x[i]) * inv) < 1e-5)
        #expect(abs(Double(weighted[i]) - Double(x[i]) * inv * Double(weight[i])) < 1e-5)
    }
}

@Test func `softmax matches the definition and sums to one`() {
    var x: [Float] = [1, 2, 3, -1000, 0.5, 80]
    let expected = x.map { exp(Double($0) - 80) }
    let total = expected.reduce(0, +)
    x.withUnsafeMutableBufferPointer { VectorMath.softmax(inPlace: $0.baseAddress!, count: $0.count) }
    for i in 0..<x.count { #expect(abs(Double(x[i]) - expected[i] / total) < 1e-6) }
    #expect(abs(x.reduce(0, +) - 1) < 1e-6)
}

@Test func `silu and gelu match their formulas at known points`() {
    let x: [Float] = [-3, -1, 0, 0.5, 1, 4]
    let silu = apply(x) { VectorMath.silu($0, out: $1, count: $2) }
    let gelu = apply(x) { VectorMath.gelu($0, out: $1, count: $2) }
    for i in 0..<x.count {
        let v = Double(x[i])
        #expect(abs(Double(silu[i]) - v / (1 + exp(-v))) < 1e-6)
        let g = 0.5 * v * (1 + tanh((2 / Double.pi).squareRoot() * (v + 0.044715 * v * v * v)))
        #expect(abs(Double(gelu[i]) - g) < 1e-6)
    }
    #expect(abs(gelu[4] - 0.841192) < 1e-5)  // tanh-approximate GELU(1), not the erf form (0.841345)
}

@Test func `ggml-style GELU rounds through f16 and saturates beyond 10`() {
    let x: [Float] = [-12, -10, -1.2345678, 0, 0.3333333, 1, 9.99, 10, 15.5]
    let out = apply(x) { VectorMath.geluLikeGGML($0, out: $1, count: $2) }
    for i in 0..<x.count {
        let expected: Float
        if x[i] <= -10 { expected = 0 } else if x[i] >= 10 { expected = x[i] } else {
            let v = Double(Float(Float16(x[i])))
            let g = 0.5 * v * (1 + tanh((2 / Double.pi).squareRoot() * (v + 0.044715 * v * v * v)))
            expected = Float(Float16(Float(g)))
        }
        #expect(out[i] == expected, "x = \(x[i]): \(out[i]) vs \(expected)")
    }
    #expect(out[5] == 0.84130859375)  // GELU(1) = 0.841192 rounded to the f16 grid
}

@Test func `ggml-style GELU equals the formula at every f16 input below saturation`() {
    // Its table must hold, for each f16 input, the float formula's result rounded to f16.
    let inputs = (0...UInt16.max).map { Float(Float16(bitPattern: $0)) }.filter { $0 > -10 && $0 < 10 }
    let exact = apply(inputs) { VectorMath.gelu($0, out: $1, count: $2) }.map { Float(Float16($0)) }
    let table = apply(inputs) { VectorMath.geluLikeGGML($0, out: $1, count: $2) }
    #expect(inputs.count > 30_000)
    let wrong = (0..<inputs.count).filter { table[$0].bitPattern != exact[$0].bitPattern }
    #expect(wrong.isEmpty, "\(wrong.count) inputs differ, first x = \(wrong.first.map { inputs[$0] } ?? 0)")
}

@Test func `add and mul are elementwise`() {
    let a: [Float] = [1, -2, 3.5, 0], b: [Float] = [4, 5, -6, 7]
    let sum = a.withUnsafeBufferPointer { ap in apply(b) { VectorMath.add(ap.baseAddress!, $0, out: $1, count: $2) } }
    let product = a.withUnsafeBufferPointer { ap in apply(b) { VectorMath.mul(ap.baseAddress!, $0, out: $1, count: $2) } }
    #expect(sum == [5, 3, -2.5, 7])
    #expect(product == [4, -10, -21, 0])
}

@Test func `addScaled accumulates and scale multiplies in place`() {
    let x: [Float] = [1, -2, 0.5]
    var acc: [Float] = [10, 10, 10]
    x.withUnsafeBufferPointer { xp in acc.withUnsafeMutableBufferPointer { VectorMath.addScaled(xp.baseAddress!, 2, into: $0.baseAddress!, count: 3) } }
    #expect(acc == [12, 6, 11])
    acc.withUnsafeMutableBufferPointer { VectorMath.scale(inPlace: $0.baseAddress!, by: 0.5, count: 3) }
    #expect(acc == [6, 3, 5.5])
}

@Test func `f32 and f16 dot products serve attention scores`() {
    // VecDot with F32/F16 "weights" is a plain dot against f32 activations (KV-cache rows).
    var rng = TestRandom(seed: 602)
    let k = rng.activations(64), q = rng.activations(64)
    let exact = zip(k, q).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
    let k16 = k.map { Float16($0) }
    let exact16 = zip(k16, q).reduce(0.0) { $0 + Double(Float($1.0)) * Double($1.1) }
    k.withUnsafeBytes { kp in q.withUnsafeBytes { qp in
        #expect(abs(Double(VecDot.dot(.f32, kp.baseAddress!, qp.baseAddress!, count: 64)) - exact) < 1e-4)
    } }
    k16.withUnsafeBytes { kp in q.withUnsafeBytes { qp in
        #expect(abs(Double(VecDot.dot(.f16, kp.baseAddress!, qp.baseAddress!, count: 64)) - exact16) < 1e-4)
    } }
}

@Test func `half conversion round trips every half and rounds floats to nearest even`() {
    for bits in 0...UInt16.max {
        let h = Float16(bitPattern: bits)
        let f = odk_fp16_to_fp32(bits)
        if h.isNaN { #expect(f.isNaN); continue }
        #expect(f == Float(h), "half \(bits)")
        #expect(odk_fp32_to_fp16(f) == bits, "half \(bits)")
    }
    var rng = TestRandom(seed: 601)
    for _ in 0..<100_000 {
        let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()) & 0x7FFF_FFFF | (rng.int(0...1) == 0 ? 0 : 0x8000_0000))
        if f.isNaN { continue }
        #expect(odk_fp32_to_fp16(f) == Float16(f).bitPattern, "float \(f)")
    }
}
