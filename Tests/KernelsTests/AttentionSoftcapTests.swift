import CKernels
import Foundation
import Testing

/// Gemma 2's attention soft-capping in the attention kernel: the SIMD body against the scalar
/// reference, and both against the definition (softmax over cap · tanh(scale · q·k / cap)).
@Suite struct AttentionSoftcapTests {
    static func random(_ n: Int, seed: inout UInt64, scale: Float) -> [Float] {
        (0..<n).map { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return scale * (Float(seed >> 40) / Float(1 << 24) * 2 - 1)
        }
    }

    @Test(arguments: [(8, 1), (16, 7), (32, 33), (24, 100), (12, 5)])
    func `capped attention matches its definition and the scalar reference`(headDim: Int, keys: Int) {
        var seed: UInt64 = UInt64(headDim * 1000 + keys)
        let stride = headDim + 8
        let q = Self.random(headDim, seed: &seed, scale: 3)
        let k = Self.random(keys * stride, seed: &seed, scale: 3)
        let v = Self.random(keys * stride, seed: &seed, scale: 1)
        let scale = 1 / Float(headDim).squareRoot(), cap: Float = 2.5
        // The definition, in double.
        var s = (0..<keys).map { t in (0..<headDim).reduce(0.0) { $0 + Double(q[$1]) * Double(k[t * stride + $1]) } * Double(scale) }
        s = s.map { Double(cap) * tanh($0 / Double(cap)) }
        let m = s.max()!
        let e = s.map { exp($0 - m) }, sum = e.reduce(0, +)
        let expected = (0..<headDim).map { i in (0..<keys).reduce(0.0) { $0 + e[$1] / sum * Double(v[$1 * stride + i]) } }
        var scores = [Float](repeating: 0, count: keys)
        var simd = [Float](repeating: 0, count: headDim), scalar = simd, uncapped = simd
        od_attend_head_capped(q, k, v, stride, keys, headDim, scale, cap, &scores, &simd)
        od_attend_head_scalar(q, k, v, stride, keys, headDim, scale, cap, &scores, &scalar)
        od_attend_head(q, k, v, stride, keys, headDim, scale, &scores, &uncapped)
        for i in 0..<headDim {
            #expect(abs(Double(simd[i]) - expected[i]) < 1e-5)
            #expect(abs(simd[i] - scalar[i]) < 1e-5)
        }
        // With scores well past the cap, capping changes the result (the test would see a
        // kernel that ignored it).
        if keys > 1 { #expect(zip(uncapped, simd).contains { abs($0 - $1) > 1e-3 }) }
    }
}
