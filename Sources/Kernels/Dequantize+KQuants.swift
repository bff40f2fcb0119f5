import Tensor

// K-quant super-blocks of 256 elements (ggml `ggml-common.h`):
// - Q2_K (84 B): scales[16] (low nibble scale, high nibble min, per 16 elements), qs[64],
//   d f16, dmin f16. Half h (128 elements) uses qs[32h ..< 32h+32]; its chunk j (32 elements)
//   is bits 2j..2j+1 of those bytes. y = d*sc*q - dmin*m.
// - Q3_K (110 B): hmask[32], qs[64], scales[12] (16 signed 6-bit scales, offset 32), d f16.
//   Low two bits as Q2_K; the third bit of element 128h + 32j + l is bit 4h+j of hmask[l];
//   q = low2 - (bit ? 0 : 4). y = d*(sc-32)*q.
// - Q4_K (144 B): d f16, dmin f16, scales[12] (eight 6-bit scale/min pairs per 32 elements),
//   qs[128]; chunk c (64 elements) = low nibbles then high nibbles of qs[32c ..< 32c+32].
//   y = d*sc*q - dmin*m.
// - Q5_K (176 B): d, dmin, scales[12], qh[32], qs[128]; as Q4_K plus a fifth bit: bit 2c of
//   qh[l] for the low-nibble half of chunk c, bit 2c+1 for the high half.
// - Q6_K (210 B): ql[128], qh[64], scales[16] i8 (per 16 elements), d f16. Half h uses
//   ql[64h ..< 64h+64] and qh[32h ..< 32h+32]; element 128h + 32k + l takes a nibble of
//   ql[64h + l + 32*(k&1)] (low for k < 2) and bits 2k..2k+1 of qh[32h + l]; q - 32.
extension Dequantize {
    static func kQuantBlock(_ type: GGMLType, _ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        switch type {
        case .q2_K: q2K(p, y)
        case .q3_K: q3K(p, y)
        case .q4_K, .q5_K: q45K(p, y, fifthBit: type == .q5_K)
        case .q6_K: q6K(p, y)
        default: preconditionFailure("not a K-quant: \(type)")
        }
    }

    private static func q2K(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = half(p, 80), dmin = half(p, 82)
        for e in 0..<256 {
            let h = e / 128, j = (e % 128) / 32, l = e % 32
            let sc = byte(p, e / 16)
            let q = (byte(p, 16 + 32 * h + l) >> (2 * j)) & 3
            let dl = d * Float(sc & 0x0F), ml = dmin * Float(sc >> 4)
            y[e] = dl * Float(q) - ml
        }
    }

    private static func q3K(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = half(p, 108)
        for e in 0..<256 {
            let h = e / 128, j = (e % 128) / 32, l = e % 32
            let low2 = (byte(p, 32 + 32 * h + l) >> (2 * j)) & 3
            let bit = (byte(p, l) >> (4 * h + j)) & 1
            let dl = d * Float(q3KScale(p + 96, e / 16))
            y[e] = dl * Float(low2 - (bit == 1 ? 0 : 4))
        }
    }

    /// Scale group g of Q3_K: low nibble from bytes 0-7, top two bits from byte 8 + g%4.
    static func q3KScale(_ s: UnsafeRawPointer, _ g: Int) -> Int {
        let lo = g < 8 ? byte(s, g) & 0x0F : byte(s, g - 8) >> 4
        let hi = (byte(s, 8 + g % 4) >> (2 * (g / 4))) & 3
        return (lo | hi << 4) - 32
    }

    /// 6-bit (scale, min) of Q4_K/Q5_K sub-block j (32 elements).
    static func kScaleMin(_ s: UnsafeRawPointer, _ j: Int) -> (scale: Int, min: Int) {
        if j < 4 { return (byte(s, j) & 63, byte(s, j + 4) & 63) }
        return ((byte(s, j + 4) & 0x0F) | (byte(s, j - 4) >> 6) << 4,
                (byte(s, j + 4) >> 4) | (byte(s, j) >> 6) << 4)
    }

    private static func q45K(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>, fifthBit: Bool) {
        let d = half(p, 0), dmin = half(p, 2)
        let qs = fifthBit ? 48 : 16
        for c in 0..<4 {
            for part in 0..<2 {
                let (sc, m) = kScaleMin(p + 4, 2 * c + part)
                let d1 = d * Float(sc), m1 = dmin * Float(m)
                for l in 0..<32 {
                    let byteValue = byte(p, qs + 32 * c + l)
                    var q = part == 0 ? byteValue & 0x0F : byteValue >> 4
                    if fifthBit { q |= ((byte(p, 16 + l) >> (2 * c + part)) & 1) << 4 }
                    y[64 * c + 32 * part + l] = d1 * Float(q) - m1
                }
            }
        }
    }

    private static func q6K(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = half(p, 208)
        for e in 0..<256 {
            let h = e / 128, k = (e % 128) / 32, l = e % 32
            let ql = byte(p, 64 * h + l + 32 * (k & 1))
            let nibble = k < 2 ? ql & 0x0F : ql >> 4
            let high = (byte(p, 128 + 32 * h + l) >> (2 * k)) & 3
            let sc = Float(int8(p, 192 + e / 16))
            y[e] = d * sc * Float((nibble | high << 4) - 32)
        }
    }
}
