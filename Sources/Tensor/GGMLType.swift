/// Element and block formats of weight tensors, numbered as GGUF stores them (ggml `ggml_type`).
///
/// Quantized formats store `blockSize` elements in `bytesPerBlock` bytes; a row's element count
/// must be a multiple of `blockSize`.
package enum GGMLType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case f32 = 0
    case f16 = 1
    case q4_0 = 2
    case q4_1 = 3
    case q5_0 = 6
    case q5_1 = 7
    case q8_0 = 8
    case q8_1 = 9
    case q2_K = 10
    case q3_K = 11
    case q4_K = 12
    case q5_K = 13
    case q6_K = 14
    case q8_K = 15
    case i8 = 24
    case i16 = 25
    case i32 = 26
    case i64 = 27
    case f64 = 28
    case bf16 = 30

    /// Elements per block (1 for plain element types).
    package var blockSize: Int {
        switch self {
        case .f32, .f16, .bf16, .i8, .i16, .i32, .i64, .f64: 1
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1: 32
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .q8_K: 256
        }
    }

    /// Bytes per block (layouts as in ggml `ggml-common.h`).
    package var bytesPerBlock: Int {
        switch self {
        case .f32, .i32: 4
        case .f16, .bf16, .i16: 2
        case .i8: 1
        case .i64, .f64: 8
        case .q4_0: 2 + 16          // d:f16, qs[16] (two 4-bit values per byte)
        case .q4_1: 4 + 16          // d:f16, m:f16, qs[16]
        case .q5_0: 2 + 4 + 16      // d:f16, qh[4] (5th bits), qs[16]
        case .q5_1: 4 + 4 + 16      // d, m, qh[4], qs[16]
        case .q8_0: 2 + 32          // d:f16, qs[32] int8
        case .q8_1: 4 + 32          // d:f16, s:f16 (d*sum), qs[32]
        case .q2_K: 16 + 64 + 4     // scales[16], qs[64], d, dmin
        case .q3_K: 32 + 64 + 12 + 2 // hmask[32], qs[64], scales[12], d
        case .q4_K: 4 + 12 + 128    // d, dmin, scales[12], qs[128]
        case .q5_K: 4 + 12 + 32 + 128 // d, dmin, scales[12], qh[32], qs[128]
        case .q6_K: 128 + 64 + 16 + 2 // ql[128], qh[64], scales[16] int8, d
        case .q8_K: 4 + 256 + 32    // d:f32, qs[256], bsums[16] int16
        }
    }

    /// Whether the engine can compute with weights of this type.
    package var isSupportedWeightType: Bool {
        switch self {
        case .f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K: true
        case .q8_1, .q8_K, .i8, .i16, .i32, .i64, .f64: false
        }
    }

    /// Bytes taken by a row of `elements` elements; nil when `elements` is not a whole number of blocks.
    package func rowBytes(elements: Int) -> Int? {
        guard elements >= 0, elements % blockSize == 0 else { return nil }
        return elements / blockSize * bytesPerBlock
    }

    package var description: String {
        switch self {
        case .f32: "F32"
        case .f16: "F16"
        case .bf16: "BF16"
        case .q4_0: "Q4_0"
        case .q4_1: "Q4_1"
        case .q5_0: "Q5_0"
        case .q5_1: "Q5_1"
        case .q8_0: "Q8_0"
        case .q8_1: "Q8_1"
        case .q2_K: "Q2_K"
        case .q3_K: "Q3_K"
        case .q4_K: "Q4_K"
        case .q5_K: "Q5_K"
        case .q6_K: "Q6_K"
        case .q8_K: "Q8_K"
        case .i8: "I8"
        case .i16: "I16"
        case .i32: "I32"
        case .i64: "I64"
        case .f64: "F64"
        }
    }
}
