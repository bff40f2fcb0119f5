import Kernels
import Tensor
import Testing

private func decode(_ type: GGMLType, _ bytes: [UInt8], count: Int) -> [Float] {
    #expect(bytes.count == count / type.blockSize * type.bytesPerBlock, "packed size of \(type)")
    var out = [Float](repeating: .nan, count: count)
    bytes.withUnsafeBytes { src in
        out.withUnsafeMutableBufferPointer { Dequantize.row(type, src.baseAddress!, $0.baseAddress!, count: count) }
    }
    return out
}

private func codes(_ n: Int, _ range: ClosedRange<Int>, _ rng: inout TestRandom) -> [Int] {
    (0..<n).map { _ in rng.int(range) }
}

// Scales are powers of two so every expected value is exact in Float.
@Test func `a Q4_0 block with d 0.5 and nibbles 0 to 15 decodes to d times nibble minus 8`() {
    let q = (0..<16).map { $0 } + (0..<16).map { 15 - $0 }
    let out = decode(.q4_0, BlockPacker.half(0.5) + BlockPacker.nibbles32(q), count: 32)
    #expect(out == q.map { 0.5 * Float($0 - 8) })
    #expect(out[0] == -4 && out[15] == 3.5 && out[16] == 3.5 && out[31] == -4)
}

@Test func `legacy 32-element formats decode known codes exactly`() {
    var rng = TestRandom(seed: 1)
    let q4 = codes(32, 0...15, &rng), q5 = codes(32, 0...31, &rng), q8 = codes(32, -128...127, &rng)
    #expect(decode(.q4_1, BlockPacker.half(0.25) + BlockPacker.half(-1.5) + BlockPacker.nibbles32(q4), count: 32)
        == q4.map { Float($0) * 0.25 - 1.5 })
    #expect(decode(.q5_0, BlockPacker.half(2) + BlockPacker.fifthBits(q5) + BlockPacker.nibbles32(q5), count: 32)
        == q5.map { 2 * Float($0 - 16) })
    #expect(decode(.q5_1, BlockPacker.half(0.125) + BlockPacker.half(3) + BlockPacker.fifthBits(q5) + BlockPacker.nibbles32(q5), count: 32)
        == q5.map { Float($0) * 0.125 + 3 })
    #expect(decode(.q8_0, BlockPacker.half(-0.5) + q8.map { UInt8(bitPattern: Int8($0)) }, count: 32)
        == q8.map { -0.5 * Float($0) })
}

@Test func `float formats decode exactly`() {
    let values: [Float] = [0, 1, -2.5, 65504, 6.103515625e-05, 5.960464477539063e-08, -0.099975586]
    #expect(decode(.f16, values.flatMap { BlockPacker.half($0) }, count: values.count) == values)
    let bf: [UInt8] = [0x80, 0x3F, 0x40, 0xC0, 0x00, 0x00]  // 1.0, -3.0, 0
    #expect(decode(.bf16, bf, count: 3) == [1, -3, 0])
    let f: [Float] = [1.25, -7, 3e-9]
    #expect(decode(.f32, f.flatMap { v in withUnsafeBytes(of: v) { Array($0) } }, count: 3) == f)
}

@Test func `Q2_K decodes d times scale times code minus dmin times min`() {
    var rng = TestRandom(seed: 2)
    let q = codes(256, 0...3, &rng), sc = codes(16, 0...15, &rng), mn = codes(16, 0...15, &rng)
    let scales = (0..<16).map { UInt8(sc[$0] | mn[$0] << 4) }
    let bytes = scales + BlockPacker.twoBitPlanes(q) + BlockPacker.half(0.5) + BlockPacker.half(0.25)
    let expected: [Float] = (0..<256).map { (e: Int) -> Float in
        let dl: Float = 0.5 * Float(sc[e / 16])
        let ml: Float = 0.25 * Float(mn[e / 16])
        return dl * Float(q[e]) - ml
    }
    #expect(decode(.q2_K, bytes, count: 256) == expected)
}

@Test func `Q3_K decodes signed 6-bit scales and 3-bit codes`() {
    var rng = TestRandom(seed: 3)
    let code = codes(256, 0...7, &rng), sc = codes(16, -32...31, &rng)
    let bytes = BlockPacker.q3KMask(code) + BlockPacker.twoBitPlanes(code) + BlockPacker.q3KScales(sc) + BlockPacker.half(0.25)
    let expected: [Float] = (0..<256).map { (e: Int) -> Float in
        let dl: Float = 0.25 * Float(sc[e / 16])
        return dl * Float(code[e] - 4)
    }
    #expect(decode(.q3_K, bytes, count: 256) == expected)
}

@Test func `Q4_K and Q5_K decode 6-bit scale and min pairs`() {
    var rng = TestRandom(seed: 4)
    let sc = codes(8, 0...63, &rng), mn = codes(8, 0...63, &rng)
    let head = BlockPacker.half(0.5) + BlockPacker.half(0.125) + BlockPacker.scaleMin12(scales: sc, mins: mn)
    func expected(_ q: [Int]) -> [Float] {
        (0..<256).map { (e: Int) -> Float in
            let d1: Float = 0.5 * Float(sc[e / 32])
            let m1: Float = 0.125 * Float(mn[e / 32])
            return d1 * Float(q[e]) - m1
        }
    }
    let q4 = codes(256, 0...15, &rng)
    #expect(decode(.q4_K, head + BlockPacker.kNibbles(q4), count: 256) == expected(q4))
    let q5 = codes(256, 0...31, &rng)
    #expect(decode(.q5_K, head + BlockPacker.q5KHigh(q5) + BlockPacker.kNibbles(q5), count: 256) == expected(q5))
}

@Test func `Q6_K decodes 6-bit codes with int8 scales per 16`() {
    var rng = TestRandom(seed: 5)
    let code = codes(256, 0...63, &rng), sc = codes(16, -128...127, &rng)
    let (ql, qh) = BlockPacker.q6K(code)
    let bytes = ql + qh + sc.map { UInt8(bitPattern: Int8($0)) } + BlockPacker.half(0.0625)
    let expected: [Float] = (0..<256).map { (e: Int) -> Float in
        let dl: Float = 0.0625 * Float(sc[e / 16])
        return dl * Float(code[e] - 32)
    }
    #expect(decode(.q6_K, bytes, count: 256) == expected)
}

@Test func `rows of several blocks decode block by block`() {
    var rng = TestRandom(seed: 6)
    for type in [GGMLType.q4_0, .q8_0, .q4_K, .q6_K] {
        let count = 3 * type.blockSize
        let bytes = RandomBlocks.rows(type, cols: count, rows: 1, rng: &rng)
        let whole = decode(type, bytes, count: count)
        let bpb = type.bytesPerBlock
        let parts = (0..<3).flatMap { b in decode(type, Array(bytes[(b * bpb)..<((b + 1) * bpb)]), count: type.blockSize) }
        #expect(whole == parts, "\(type)")
    }
}
