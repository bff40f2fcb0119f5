import CKernels
import Kernels
import Tensor
import Testing

@Test(arguments: [GGMLType.q8_0, .q4_1, .q4_K])
func `quantized activations round trip within half a step`(weight: GGMLType) {
    let format = ActivationQuantizer.format(for: weight)!
    var rng = TestRandom(seed: 500 + UInt64(weight.rawValue))
    let cols = 512
    let x = rng.activations(cols)
    let bytes = quantizedActivations(weight, x)
    var back = [Float](repeating: 0, count: cols)
    bytes.withUnsafeBytes { p in back.withUnsafeMutableBufferPointer { Dequantize.row(format, p.baseAddress!, $0.baseAddress!, count: cols) } }
    for b in 0..<(cols / format.blockSize) {
        let block = (b * format.blockSize)..<((b + 1) * format.blockSize)
        let amax = x[block].map(abs).max()!
        // Half a step of amax/127, plus the f16 rounding of d (Q8_0/Q8_1) over up to 127 steps.
        let bound = amax / 127 * 0.5 + (format == .q8_K ? amax * 1e-6 : amax * 5e-4)
        for i in block { #expect(abs(back[i] - x[i]) <= bound, "\(format) element \(i): \(x[i]) -> \(back[i])") }
    }
}

@Test func `Q8_1 stores d times the code sum and Q8_K stores group sums`() {
    var rng = TestRandom(seed: 501)
    let x = rng.activations(256)
    let q81 = quantizedActivations(.q4_1, x)
    for b in 0..<8 {
        let base = b * 36
        let d = Float(Float16(bitPattern: UInt16(q81[base]) | UInt16(q81[base + 1]) << 8))
        let s = Float(Float16(bitPattern: UInt16(q81[base + 2]) | UInt16(q81[base + 3]) << 8))
        let sum = (0..<32).reduce(0) { $0 + Int(Int8(bitPattern: q81[base + 4 + $1])) }
        #expect(abs(s - d * Float(sum)) <= abs(d * Float(sum)) * 1e-3 + 1e-6)
    }
    let q8k = quantizedActivations(.q4_K, x)
    for g in 0..<16 {
        let sum = (0..<16).reduce(0) { $0 + Int(Int8(bitPattern: q8k[4 + 16 * g + $1])) }
        let stored = Int(Int16(bitPattern: UInt16(q8k[260 + 2 * g]) | UInt16(q8k[261 + 2 * g]) << 8))
        #expect(stored == sum)
    }
}

@Test func `the largest activation maps to code 127 in magnitude`() {
    var x = [Float](repeating: 0.01, count: 256)
    x[7] = -3
    let q80 = quantizedActivations(.q8_0, x), q8k = quantizedActivations(.q4_K, x)
    #expect(Int8(bitPattern: q80[2 + 7]) == -127)
    #expect(Int8(bitPattern: q8k[4 + 7]) == -127)  // Q8_K scales by -127/max, so d is positive here
    #expect(q8k.withUnsafeBytes { $0.loadUnaligned(as: Float.self) } == 3 / Float(127))
}

@Test func `zero activations quantize to zero`() {
    let x = [Float](repeating: 0, count: 256)
    for weight in [GGMLType.q8_0, .q4_1, .q4_K] {
        #expect(quantizedActivations(weight, x).allSatisfy { $0 == 0 }, "\(weight)")
    }
}

@Test(arguments: [GGMLType.q8_0, .q4_1, .q4_K])
func `SIMD activation quantization is bit-identical to the scalar code`(weight: GGMLType) {
    var rng = TestRandom(seed: 502 + UInt64(weight.rawValue))
    let cols = 1024
    for trial in 0..<20 {
        var x = rng.activations(cols)
        if trial == 1 { x = x.map { ($0 * 8).rounded() / 8 } }  // many ties at x * 127/amax
        if trial == 2 { x[5] = 3; x[300] = -3 }                  // equal magnitudes of both signs
        if trial == 3 { for i in 0..<256 { x[i] = 0 } }           // an all-zero block
        let simd = quantizedActivations(weight, x)
        var scalar = [UInt8](repeating: 0, count: simd.count)
        x.withUnsafeBufferPointer { xp in
            scalar.withUnsafeMutableBytes {
                odk_quantize_activations_scalar(Int32(weight.rawValue), xp.baseAddress!, $0.baseAddress!, Int64(cols))
            }
        }
        #expect(simd == scalar, "\(weight) trial \(trial)")
    }
}
