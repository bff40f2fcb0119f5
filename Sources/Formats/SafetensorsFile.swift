import Foundation
import Tensor

/// A safetensors file, memory-mapped; tensors are zero-copy views into the mapping.
///
/// Layout (huggingface/safetensors format description):
/// ```
/// u64 LE   N           header length in bytes
/// N bytes  header      UTF-8 JSON object: name → {"dtype": "F32", "shape": [d0, d1, ...],
///                      "data_offsets": [begin, end]}, plus an optional "__metadata__" object
///                      of string → string
/// rest     data        tensor bytes; offsets are relative to the end of the header
/// ```
/// Shapes in the file are row-major (outermost first); `TensorView.shape` is ggml order
/// (innermost first), so they are reversed here.
package struct SafetensorsFile: Sendable {
    package let region: MappedRegion
    /// Tensors by name.
    package let tensorInfos: [String: SafetensorsTensorInfo]
    /// The header's `__metadata__` strings.
    package let metadata: [String: String]

    package static func open(path: String) throws(FormatError) -> SafetensorsFile {
        let region: MappedRegion
        do { region = try MappedRegion(path: path) } catch { throw .io(error) }
        return try SafetensorsFile(region: region)
    }

    package init(region: MappedRegion) throws(FormatError) {
        self.region = region
        let bytes = region.bytes
        guard bytes.count >= 8 else { throw .truncated(field: "safetensors header length", offset: 0, needed: 8, fileSize: bytes.count) }
        let headerLength = bytes.loadUnaligned(as: UInt64.self).littleEndian
        guard headerLength <= UInt64(bytes.count - 8), headerLength <= 100_000_000 else {
            throw .absurdCount(field: "safetensors header length", count: headerLength, offset: 0)
        }
        let dataStart = 8 + Int(headerLength)
        let json = Data(bytes[8..<dataStart])
        guard let object = try? JSONSerialization.jsonObject(with: json), let header = object as? [String: Any] else {
            throw .invalidHeader(format: "safetensors", detail: "the header is not a JSON object")
        }
        var infos: [String: SafetensorsTensorInfo] = [:]
        var metadata: [String: String] = [:]
        for (name, value) in header {
            if name == "__metadata__" {
                for (k, v) in value as? [String: Any] ?? [:] { metadata[k] = v as? String }
                continue
            }
            infos[name] = try SafetensorsTensorInfo(name: name, entry: value, dataStart: dataStart, fileSize: bytes.count)
        }
        self.tensorInfos = infos
        self.metadata = metadata
    }

    package func hasTensor(_ name: String) -> Bool { tensorInfos[name] != nil }

    /// A zero-copy view of tensor `name`.
    package func tensor(_ name: String) throws(FormatError) -> TensorView {
        guard let info = tensorInfos[name], let base = region.base else { throw .missingTensor(name: name) }
        return TensorView(name: name, type: info.type, shape: info.shape, data: base + info.offset,
                          byteCount: info.byteCount, owner: region)
    }
}

/// Where one safetensors tensor lives, checked against the file.
package struct SafetensorsTensorInfo: Sendable, Equatable {
    package let name: String
    package let type: GGMLType
    /// ggml order: innermost dimension first.
    package let shape: [Int]
    /// Absolute offset in the file.
    package let offset: Int
    package let byteCount: Int

    init(name: String, entry: Any, dataStart: Int, fileSize: Int) throws(FormatError) {
        guard let e = entry as? [String: Any], let dtype = e["dtype"] as? String,
              let shape = e["shape"] as? [Int], let offsets = e["data_offsets"] as? [Int], offsets.count == 2 else {
            throw .invalidHeader(format: "safetensors", detail: "tensor '\(name)' lacks dtype, shape or data_offsets")
        }
        let types: [String: GGMLType] = ["F32": .f32, "F16": .f16, "BF16": .bf16, "F64": .f64,
                                         "I64": .i64, "I32": .i32, "I16": .i16, "I8": .i8]
        guard let type = types[dtype] else { throw .unsupportedDType(name: name, dtype: dtype) }
        var count = 1
        for d in shape {
            guard d >= 0 else { throw .invalidDimensions(name: name, dims: shape.map { UInt64(bitPattern: Int64($0)) }) }
            let (p, overflow) = count.multipliedReportingOverflow(by: d)
            guard !overflow else { throw .invalidDimensions(name: name, dims: shape.map { UInt64($0) }) }
            count = p
        }
        let (begin, end) = (offsets[0], offsets[1])
        let bytes = count * type.bytesPerBlock
        guard begin >= 0, end >= begin, end - begin == bytes else {
            throw .invalidHeader(format: "safetensors", detail: "tensor '\(name)': data_offsets \(offsets) do not hold \(shape) \(dtype)")
        }
        guard dataStart + end <= fileSize else {
            throw .tensorOutOfBounds(name: name, offset: dataStart + begin, size: bytes, fileSize: fileSize)
        }
        self.name = name
        self.type = type
        self.shape = shape.isEmpty ? [1] : Array(shape.reversed())
        self.offset = dataStart + begin
        self.byteCount = bytes
    }
}
