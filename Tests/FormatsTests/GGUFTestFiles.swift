import Formats
import Tensor
import TestSupport

/// Shared fixtures for the GGUF tests.
enum GGUFTestFiles {
    /// Parses an in-memory file image with the same validation `GGUFFile` uses.
    static func parse(_ bytes: [UInt8]) -> Result<GGUFHeader, FormatError> {
        bytes.withUnsafeBytes { raw in
            do throws(FormatError) {
                return .success(try GGUFHeader(parsing: raw))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The error parsing `bytes` gives, or nil if it parses.
    static func error(_ bytes: [UInt8]) -> FormatError? {
        if case .failure(let error) = parse(bytes) { return error }
        return nil
    }

    /// A small valid file exercising strings, arrays and two tensors.
    static func small(version: UInt32 = 3, alignment: Int? = nil) -> GGUFWriter {
        var w = GGUFWriter(version: version, alignment: alignment)
        w.add("general.architecture", .string("llama"))
        w.add("llama.block_count", .uint32(2))
        w.add("llama.rope.freq_base", .float32(10_000))
        w.add("tokenizer.ggml.add_bos_token", .bool(true))
        w.add("tokenizer.ggml.tokens", .array(.string(["<s>", "é", "ab"])))
        w.add("tokenizer.ggml.scores", .array(.float32([0, -1.5, 2])))
        w.addTensor(name: "norm.weight", floats: [1, 2, 3, 4], shape: [4])
        w.addTensor(name: "blk.0.q.weight", type: .q8_0, shape: [32, 2], data: (0..<68).map { UInt8($0) })
        return w
    }

    /// A file with exactly one tensor described by raw fields, for hostile-tensor tests.
    static func oneTensor(name: String = "t", rawType: UInt32 = GGMLType.f32.rawValue, dims: [UInt64] = [4],
                          data: [UInt8] = Array(repeating: 0, count: 16), offset: UInt64? = nil) -> [UInt8] {
        var w = GGUFWriter()
        w.addTensor(.init(name: name, rawType: rawType, dims: dims, data: data, offsetOverride: offset))
        return w.bytes()
    }
}
