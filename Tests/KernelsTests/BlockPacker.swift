import Tensor

/// Packs logical quant values into ggml block bytes, written from the quantizer side of the
/// layout (how ggml's `quantize_row_*_ref` stores codes), so the dequantizer is checked against
/// an independent description rather than against itself.
enum BlockPacker {
    static func half(_ v: Float) -> [UInt8] { RandomBlocks.half(v) }

    /// Q4_0 / Q4_1 nibbles: element j in the low nibble of byte j, element j + 16 in the high one.
    static func nibbles32(_ q: [Int]) -> [UInt8] {
        (0..<16).map { UInt8(q[$0] & 0xF) | UInt8(q[$0 + 16] & 0xF) << 4 }
    }

    /// Q5 fifth bits: bit j of a little-endian u32 is bit 4 of element j.
    static func fifthBits(_ q: [Int]) -> [UInt8] {
        var h: UInt32 = 0
        for j in 0..<32 where q[j] & 0x10 != 0 { h |= 1 << UInt32(j) }
        return withUnsafeBytes(of: h.littleEndian) { Array($0) }
    }

    /// Q2_K/Q3_K low two bits: byte 32h + l holds elements 128h + l + 32k in bits 2k..2k+1.
    static func twoBitPlanes(_ q: [Int]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        for h in 0..<2 {
            for l in 0..<32 {
                var b = 0
                for k in 0..<4 { b |= (q[128 * h + l + 32 * k] & 3) << (2 * k) }
                out[32 * h + l] = UInt8(b)
            }
        }
        return out
    }

    /// Q4_K/Q5_K: eight 6-bit (scale, min) pairs in 12 bytes.
    static func scaleMin12(scales: [Int], mins: [Int]) -> [UInt8] {
        var s = [UInt8](repeating: 0, count: 12)
        for j in 0..<8 {
            let ls = scales[j], lm = mins[j]
            if j < 4 {
                s[j] = UInt8(ls)
                s[j + 4] = UInt8(lm)
            } else {
                s[j + 4] = UInt8((ls & 0xF) | (lm & 0xF) << 4)
                s[j - 4] |= UInt8((ls >> 4) << 6)
                s[j] |= UInt8((lm >> 4) << 6)
            }
        }
        return s
    }

    /// Q3_K: sixteen 6-bit scales (stored as scale + 32) in 12 bytes.
    static func q3KScales(_ scales: [Int]) -> [UInt8] {
        var s = [UInt8](repeating: 0, count: 12)
        for j in 0..<16 {
            let l = scales[j] + 32
            if j < 8 { s[j] = UInt8(l & 0xF) } else { s[j - 8] |= UInt8((l & 0xF) << 4) }
            s[j % 4 + 8] |= UInt8((l >> 4) << (2 * (j / 4)))
        }
        return s
    }

    /// Q4_K/Q5_K low nibbles: chunk c (64 elements) stores element 64c + l low and 64c + 32 + l high in byte 32c + l.
    static func kNibbles(_ q: [Int]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 128)
        for c in 0..<4 {
            for l in 0..<32 { out[32 * c + l] = UInt8(q[64 * c + l] & 0xF) | UInt8(q[64 * c + 32 + l] & 0xF) << 4 }
        }
        return out
    }

    /// Q5_K fifth bits: qh[l] bit 2c is element 64c + l, bit 2c+1 is element 64c + 32 + l.
    static func q5KHigh(_ q: [Int]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for c in 0..<4 {
            for l in 0..<32 {
                if q[64 * c + l] & 0x10 != 0 { out[l] |= UInt8(1 << (2 * c)) }
                if q[64 * c + 32 + l] & 0x10 != 0 { out[l] |= UInt8(1 << (2 * c + 1)) }
            }
        }
        return out
    }

    /// Q6_K: codes 0...63 (value + 32) into ql[128], qh[64].
    static func q6K(_ codes: [Int]) -> (ql: [UInt8], qh: [UInt8]) {
        var ql = [UInt8](repeating: 0, count: 128), qh = [UInt8](repeating: 0, count: 64)
        for h in 0..<2 {
            let L = Array(codes[(128 * h)..<(128 * h + 128)])
            for l in 0..<32 {
                ql[64 * h + l] = UInt8(L[l] & 0xF) | UInt8(L[l + 64] & 0xF) << 4
                ql[64 * h + l + 32] = UInt8(L[l + 32] & 0xF) | UInt8(L[l + 96] & 0xF) << 4
                qh[32 * h + l] = UInt8(L[l] >> 4) | UInt8(L[l + 32] >> 4) << 2 | UInt8(L[l + 64] >> 4) << 4 | UInt8(L[l + 96] >> 4) << 6
            }
        }
        return (ql, qh)
    }

    /// Q3_K high mask: element j sets bit j / 32 of hmask[j % 32] when its code is >= 4.
    static func q3KMask(_ codes: [Int]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for j in 0..<256 where codes[j] >= 4 { out[j % 32] |= UInt8(1 << (j / 32)) }
        return out
    }
}
