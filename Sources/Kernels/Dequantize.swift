import Tensor

/// Scalar dequantization of ggml tensor rows to f32 — the reference every SIMD kernel is tested
/// against, and the embedding lookup (one row per token, so speed is secondary).
///
/// Block layouts (ggml `ggml-common.h`, little-endian, f16 = IEEE half):
/// - Q4_0 (18 B): d f16, qs[16]; element j < 16 = low nibble of qs[j], j + 16 = high nibble; y = d (q - 8).
/// - Q4_1 (20 B): d f16, m f16, qs[16]; y = d q + m.
/// - Q5_0 (22 B): d f16, qh u32, qs[16]; bit j of qh is element j's fifth bit; y = d (q - 16).
/// - Q5_1 (24 B): d f16, m f16, qh u32, qs[16]; y = d q + m.
/// - Q8_0 (34 B): d f16, qs[32] i8; y = d q.   Q8_1 (36 B): d f16, s f16, qs[32] i8; y = d q.
/// - Q8_K (292 B): d f32, qs[256] i8, bsums[16] i16; y = d q.
/// The K-quant layouts are described in `Dequantize+KQuants.swift`.
package enum Dequantize {
    /// Writes `count` floats decoded from `src` (a whole number of blocks of `type`) to `dst`.
    package static func row(_ type: GGMLType, _ src: UnsafeRawPointer, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        precondition(count % type.blockSize == 0, "\(type) rows hold whole blocks of \(type.blockSize)")
        let blocks = count / type.blockSize
        let bpb = type.bytesPerBlock
        switch type {
        case .f32:
            dst.update(from: src.assumingMemoryBound(to: Float.self), count: count)
        case .f16:
            for i in 0..<count { dst[i] = half(src, 2 * i) }
        case .bf16:
            for i in 0..<count {
                dst[i] = Float(bitPattern: UInt32(src.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) << 16)
            }
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1:
            for b in 0..<blocks { legacyBlock(type, src + b * bpb, dst + b * 32) }
        case .q8_K:
            for b in 0..<blocks {
                let p = src + b * bpb
                let d = p.loadUnaligned(as: Float.self)
                for j in 0..<256 { dst[b * 256 + j] = d * Float(int8(p, 4 + j)) }
            }
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K:
            for b in 0..<blocks { kQuantBlock(type, src + b * bpb, dst + b * 256) }
        case .i8, .i16, .i32, .i64, .f64:
            preconditionFailure("\(type) is not a float or quantized float format")
        }
    }

    /// One 32-element block of the legacy formats.
    private static func legacyBlock(_ type: GGMLType, _ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        switch type {
        case .q4_0:
            let d = half(p, 0)
            for j in 0..<16 {
                let q = p.load(fromByteOffset: 2 + j, as: UInt8.self)
                y[j] = d * Float(Int(q & 0x0F) - 8)
                y[j + 16] = d * Float(Int(q >> 4) - 8)
            }
        case .q4_1:
            let d = half(p, 0), m = half(p, 2)
            for j in 0..<16 {
                let q = p.load(fromByteOffset: 4 + j, as: UInt8.self)
                y[j] = Float(q & 0x0F) * d + m
                y[j + 16] = Float(q >> 4) * d + m
            }
        case .q5_0:
            let d = half(p, 0)
            let qh = p.loadUnaligned(fromByteOffset: 2, as: UInt32.self)
            for j in 0..<16 {
                let q = p.load(fromByteOffset: 6 + j, as: UInt8.self)
                let lo = Int(q & 0x0F) | Int((qh >> UInt32(j)) & 1) << 4
                let hi = Int(q >> 4) | Int((qh >> UInt32(j + 16)) & 1) << 4
                y[j] = d * Float(lo - 16)
                y[j + 16] = d * Float(hi - 16)
            }
        case .q5_1:
            let d = half(p, 0), m = half(p, 2)
            let qh = p.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            for j in 0..<16 {
                let q = p.load(fromByteOffset: 8 + j, as: UInt8.self)
                let lo = Int(q & 0x0F) | Int((qh >> UInt32(j)) & 1) << 4
                let hi = Int(q >> 4) | Int((qh >> UInt32(j + 16)) & 1) << 4
                y[j] = Float(lo) * d + m
                y[j + 16] = Float(hi) * d + m
            }
        case .q8_0:
            let d = half(p, 0)
            for j in 0..<32 { y[j] = d * Float(int8(p, 2 + j)) }
        case .q8_1:
            let d = half(p, 0)
            for j in 0..<32 { y[j] = d * Float(int8(p, 4 + j)) }
        default:
            preconditionFailure("not a 32-element format: \(type)")
        }
    }

    /// IEEE half at `offset`, widened to Float.
    @inline(__always) static func half(_ p: UnsafeRawPointer, _ offset: Int) -> Float {
        Float(Float16(bitPattern: p.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
    }

    @inline(__always) static func int8(_ p: UnsafeRawPointer, _ offset: Int) -> Int8 {
        p.load(fromByteOffset: offset, as: Int8.self)
    }

    @inline(__always) static func byte(_ p: UnsafeRawPointer, _ offset: Int) -> Int {
        Int(p.load(fromByteOffset: offset, as: UInt8.self))
    }
}
