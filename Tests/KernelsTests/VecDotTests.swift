import Foundation
import Kernels
import Tensor
import Testing

/// |a - b| normalized by the sum of absolute products, so error is judged against the size of
/// the terms rather than a possibly cancelling result.
func normalizedError(_ a: Double, _ b: Double, scale: Double) -> Double {
    abs(a - b) / max(scale, 1e-30)
}

/// Σ|w_i a_i| over the dequantized rows, the scale for `normalizedError`.
func absProductSum(_ type: GGMLType, _ w: UnsafeRawPointer, _ act: UnsafeRawPointer, count: Int) -> Double {
    let actType = ActivationQuantizer.format(for: type)!
    var wf = [Float](repeating: 0, count: count), af = [Float](repeating: 0, count: count)
    wf.withUnsafeMutableBufferPointer { Dequantize.row(type, w, $0.baseAddress!, count: count) }
    af.withUnsafeMutableBufferPointer { Dequantize.row(actType, act, $0.baseAddress!, count: count) }
    return zip(wf, af).reduce(0) { $0 + abs(Double($1.0) * Double($1.1)) }
}

/// Quantized activations for `type` as bytes.
func quantizedActivations(_ type: GGMLType, _ x: [Float]) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: ActivationQuantizer.rowBytes(for: type, cols: x.count))
    x.withUnsafeBufferPointer { xp in
        bytes.withUnsafeMutableBytes { ActivationQuantizer.quantize(for: type, xp.baseAddress!, $0.baseAddress!, cols: x.count) }
    }
    return bytes
}

/// The Q8_1 `s` field is d·Σq rounded to f16, so the mins term of Q4_1/Q5_1 carries f16 error
/// against a reference that sums d·q exactly.
func referenceTolerance(_ type: GGMLType) -> Double {
    type == .q4_1 || type == .q5_1 ? 2e-3 : 2e-5
}

@Test(arguments: KernelTypes.all)
func `SIMD, scalar C and Swift reference dot products agree`(type: GGMLType) {
    var rng = TestRandom(seed: 100 + UInt64(type.rawValue))
    for blocks in [1, 3, 7, 18] {
        let cols = KernelTypes.cols(type, blocks: blocks)
        for _ in 0..<4 {
            let w = RandomBlocks.rows(type, cols: cols, rows: 1, rng: &rng)
            let act = quantizedActivations(type, rng.activations(cols))
            w.withUnsafeBytes { wp in
                act.withUnsafeBytes { ap in
                    let w = wp.baseAddress!, a = ap.baseAddress!
                    let simd = Double(VecDot.dot(type, w, a, count: cols))
                    let scalar = Double(VecDot.dotScalar(type, w, a, count: cols))
                    let ref = ReferenceDot.dot(type, w, activations: a, count: cols)
                    let scale = absProductSum(type, w, a, count: cols)
                    #expect(scale > 0)
                    #expect(normalizedError(simd, scalar, scale: scale) < 1e-5, "\(type) \(cols): simd \(simd) scalar \(scalar)")
                    #expect(normalizedError(scalar, ref, scale: scale) < referenceTolerance(type), "\(type) \(cols): scalar \(scalar) ref \(ref)")
                    #expect(normalizedError(simd, ref, scale: scale) < referenceTolerance(type), "\(type) \(cols): simd \(simd) ref \(ref)")
                }
            }
        }
    }
}

@Test func `the SIMD kernels are in use on this machine`() {
    // The development and CI machines have AVX2 or NEON; without SIMD the agreement test above
    // would compare the scalar kernel with itself. ONDEVICE_KERNELS caps the tier, so a run
    // with a cap must get exactly the tier it asks for (x86 caps only bind on x86).
    let cap = ProcessInfo.processInfo.environment["ONDEVICE_KERNELS"]?.lowercased()
    switch cap {
    case "scalar":
        #expect(VecDot.tier == "scalar")
        #expect(!VecDot.usesSIMD)
    #if arch(x86_64)
    case "avx2":
        #expect(VecDot.tier == "avx2")
    #endif
    default:
        #expect(VecDot.usesSIMD, "tier \(VecDot.tier) with ONDEVICE_KERNELS=\(cap ?? "")")
    }
}

@Test(arguments: [GGMLType.q8_0, .q4_K, .q6_K])
func `a dot product with extreme codes does not saturate`(type: GGMLType) {
    // All-0xFF codes with the largest activations (±127) stress the int16 pair sums of maddubs.
    let cols = type.blockSize * 2
    var w = [UInt8](repeating: 0xFF, count: cols / type.blockSize * type.bytesPerBlock)
    for b in 0..<(cols / type.blockSize) {
        for offset in RandomBlocks.halfFields(type) {
            let h = RandomBlocks.half(0.01)
            w[b * type.bytesPerBlock + offset] = h[0]
            w[b * type.bytesPerBlock + offset + 1] = h[1]
        }
    }
    if type == .q6_K {  // scales are int8: make them the extreme -128 and 127 alternately
        for b in 0..<2 { for g in 0..<16 { w[b * 210 + 192 + g] = g % 2 == 0 ? 0x80 : 0x7F } }
    }
    let x = (0..<cols).map { i in Float(i % 2 == 0 ? 1 : -1) }
    let act = quantizedActivations(type, x)
    w.withUnsafeBytes { wp in
        act.withUnsafeBytes { ap in
            let simd = Double(VecDot.dot(type, wp.baseAddress!, ap.baseAddress!, count: cols))
            let ref = ReferenceDot.dot(type, wp.baseAddress!, activations: ap.baseAddress!, count: cols)
            let scale = absProductSum(type, wp.baseAddress!, ap.baseAddress!, count: cols)
            #expect(normalizedError(simd, ref, scale: scale) < 2e-5, "\(type): simd \(simd) ref \(ref)")
        }
    }
}
