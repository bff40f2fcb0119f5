import Tensor

/// Deterministic SplitMix64 so failures reproduce.
struct TestRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Uniform in [lo, hi).
    mutating func float(_ lo: Float, _ hi: Float) -> Float {
        lo + (hi - lo) * Float(next() >> 40) / Float(1 << 24)
    }

    /// Activation-like values: mostly in [-1, 1] with an occasional outlier, as hidden states have.
    mutating func activations(_ count: Int) -> [Float] {
        (0..<count).map { _ in
            let v = float(-1, 1)
            return int(0...31) == 0 ? v * 8 : v
        }
    }
}

/// Random but valid weight rows: every byte pattern is a valid quant code, so fill with random
/// bytes and then overwrite the f16 scale fields with moderate values (random halves could be
/// huge or NaN).
enum RandomBlocks {
    /// Byte offsets of the f16 scale fields inside one block.
    static func halfFields(_ type: GGMLType) -> [Int] {
        switch type {
        case .q4_0, .q5_0, .q8_0: [0]
        case .q4_1, .q5_1: [0, 2]
        case .q2_K: [80, 82]
        case .q3_K: [108]
        case .q4_K, .q5_K: [0, 2]
        case .q6_K: [208]
        default: []
        }
    }

    static func half(_ v: Float) -> [UInt8] {
        let bits = Float16(v).bitPattern
        return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
    }

    /// `rows` rows of `cols` elements of `type`, row-major.
    static func rows(_ type: GGMLType, cols: Int, rows: Int, rng: inout TestRandom) -> [UInt8] {
        switch type {
        case .f32:
            return (0..<(cols * rows)).flatMap { _ in withUnsafeBytes(of: rng.float(-0.2, 0.2)) { Array($0) } }
        case .f16:
            return (0..<(cols * rows)).flatMap { _ in half(rng.float(-0.2, 0.2)) }
        case .bf16:
            return (0..<(cols * rows)).flatMap { _ in
                let bits = rng.float(-0.2, 0.2).bitPattern >> 16
                return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
            }
        default:
            let blocks = cols / type.blockSize * rows
            var bytes = (0..<(blocks * type.bytesPerBlock)).map { _ in rng.byte() }
            for b in 0..<blocks {
                for offset in halfFields(type) {
                    let sign: Float = rng.int(0...3) == 0 ? -1 : 1
                    let h = half(sign * rng.float(0.002, 0.02))
                    bytes[b * type.bytesPerBlock + offset] = h[0]
                    bytes[b * type.bytesPerBlock + offset + 1] = h[1]
                }
            }
            return bytes
        }
    }

    /// A weight tensor view of random rows; keeps its storage alive.
    static func tensor(_ type: GGMLType, cols: Int, rows: Int, rng: inout TestRandom) -> TensorView {
        let buffer = OwnedBuffer(bytes: Self.rows(type, cols: cols, rows: rows, rng: &rng))
        return TensorView(name: "w.\(type)", type: type, shape: [cols, rows], data: UnsafeRawPointer(buffer.pointer),
                          byteCount: buffer.count, owner: buffer)
    }
}

/// Weight types with a matmul kernel, and a column count of `blocks` blocks for each.
enum KernelTypes {
    static let all: [GGMLType] = [.f32, .f16, .bf16, .q8_0, .q4_0, .q4_1, .q5_0, .q5_1, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K]

    static func cols(_ type: GGMLType, blocks: Int) -> Int {
        switch type {
        case .f32, .f16, .bf16: 32 * blocks + (blocks == 1 ? 3 : 0)  // odd sizes reach the scalar tails
        default: type.blockSize * blocks
        }
    }
}
