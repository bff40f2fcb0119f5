import Foundation
import Formats
import Tensor

/// Builds small, well-formed GGUF files for tests across the project: any metadata, tensors
/// given as raw bytes, chosen version and alignment. Tensor fields can be overridden one by one
/// (raw type id, dims, offset) to build hostile files.
package struct GGUFWriter {
    /// One tensor to write. `rawType`, `dims` and `offsetOverride` are raw so tests can lie.
    package struct Tensor {
        package var name: String
        package var rawType: UInt32
        /// ggml order: innermost dimension first.
        package var dims: [UInt64]
        package var data: [UInt8]
        /// Data-section offset to write instead of the laid-out one.
        package var offsetOverride: UInt64?

        package init(name: String, rawType: UInt32, dims: [UInt64], data: [UInt8], offsetOverride: UInt64? = nil) {
            self.name = name
            self.rawType = rawType
            self.dims = dims
            self.data = data
            self.offsetOverride = offsetOverride
        }
    }

    package var version: UInt32
    /// Alignment used to lay out the data section.
    package var alignment: Int
    /// Metadata in file order.
    package var metadata: [(key: String, value: GGUFValue)] = []
    package var tensors: [Tensor] = []

    /// `alignment` nil lays out at the GGUF default (32) without writing `general.alignment`;
    /// otherwise `general.alignment` is written first as a u32.
    package init(version: UInt32 = 3, alignment: Int? = nil) {
        self.version = version
        self.alignment = alignment ?? 32
        if let alignment { metadata.append(("general.alignment", .uint32(UInt32(alignment)))) }
    }

    package mutating func add(_ key: String, _ value: GGUFValue) {
        metadata.append((key, value))
    }

    /// Adds a tensor of `type` and `shape` (ggml order) with its raw bytes.
    package mutating func addTensor(name: String, type: GGMLType, shape: [Int], data: [UInt8]) {
        tensors.append(Tensor(name: name, rawType: type.rawValue, dims: shape.map { UInt64($0) }, data: data))
    }

    /// Adds an F32 tensor.
    package mutating func addTensor(name: String, floats: [Float], shape: [Int]) {
        var data: [UInt8] = []
        data.reserveCapacity(floats.count * 4)
        for f in floats { withUnsafeBytes(of: f.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        addTensor(name: name, type: .f32, shape: shape, data: data)
    }

    package mutating func addTensor(_ tensor: Tensor) {
        tensors.append(tensor)
    }

    /// Data-section offsets the writer lays tensors out at (before overrides).
    package var layoutOffsets: [UInt64] {
        var offsets: [UInt64] = []
        var next = 0
        for t in tensors {
            offsets.append(UInt64(next))
            next = (next + t.data.count + alignment - 1) / alignment * alignment
        }
        return offsets
    }

    /// The file's bytes.
    package func bytes() -> [UInt8] {
        var e = GGUFEncoder()
        e.header(version: version, tensorCount: UInt64(tensors.count), kvCount: UInt64(metadata.count))
        for (key, value) in metadata { e.keyValue(key, value) }
        let offsets = layoutOffsets
        for (t, offset) in zip(tensors, offsets) {
            e.tensorInfo(name: t.name, dims: t.dims, rawType: t.rawType, offset: t.offsetOverride ?? offset)
        }
        e.pad(to: alignment)
        let dataStart = e.bytes.count
        for (t, offset) in zip(tensors, offsets) {
            e.bytes.append(contentsOf: repeatElement(0, count: dataStart + Int(offset) - e.bytes.count))
            e.bytes.append(contentsOf: t.data)
        }
        // No padding after the last tensor, so every strict prefix of the file is invalid.
        return e.bytes
    }

    /// Writes the file to `path`.
    package func write(to path: String) throws {
        try Data(bytes()).write(to: URL(fileURLWithPath: path))
    }

    /// Writes the file as `name` inside `directory` and returns its path.
    package func write(in directory: TemporaryDirectory, name: String = "model.gguf") throws -> String {
        let path = directory.file(name)
        try write(to: path)
        return path
    }
}
