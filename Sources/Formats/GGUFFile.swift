import Tensor

/// A GGUF model file, memory-mapped and validated; tensors are zero-copy views into the mapping.
///
/// Parsing checks every count, offset and size against the file (see `GGUFHeader`), so a
/// truncated or hostile file fails with a `FormatError` and `tensor(_:)` never points outside it.
package struct GGUFFile: Sendable {
    /// GGUF version (2 or 3).
    package let version: UInt32
    /// Data alignment in bytes (`general.alignment`, default 32).
    package let alignment: Int
    /// The mapping every tensor points into and keeps alive.
    package let region: MappedRegion
    /// All metadata by key.
    package let metadata: [String: GGUFValue]
    /// Metadata keys in file order.
    package let metadataKeys: [String]
    /// Tensors in file order.
    package let tensorInfos: [GGUFTensorInfo]
    /// Absolute offset of the data section.
    package let dataOffset: Int
    private let tensorIndex: [String: Int]

    /// Maps and parses the file at `path`.
    package static func open(path: String) throws(FormatError) -> GGUFFile {
        let region: MappedRegion
        do {
            region = try MappedRegion(path: path)
        } catch {
            throw .io(error)
        }
        return try GGUFFile(region: region)
    }

    /// Parses an already mapped file.
    package init(region: MappedRegion) throws(FormatError) {
        let header = try GGUFHeader(parsing: region.bytes)
        self.region = region
        version = header.version
        alignment = header.alignment
        metadata = header.metadata
        metadataKeys = header.metadataKeys
        tensorInfos = header.tensorInfos
        dataOffset = header.dataOffset
        tensorIndex = header.tensorIndex
    }

    /// Whether the file has a tensor called `name`.
    package func hasTensor(_ name: String) -> Bool { tensorIndex[name] != nil }

    /// The description of tensor `name`, if present.
    package func tensorInfo(_ name: String) -> GGUFTensorInfo? {
        tensorIndex[name].map { tensorInfos[$0] }
    }

    /// A zero-copy view of tensor `name`, owned by `region`.
    package func tensor(_ name: String) throws(FormatError) -> TensorView {
        guard let info = tensorInfo(name) else { throw .missingTensor(name: name) }
        // Parsing proved offset + byteCount ≤ file size, and a file with a header is never empty.
        guard let base = region.base else {
            throw .tensorOutOfBounds(name: name, offset: info.offset, size: info.byteCount, fileSize: region.count)
        }
        return TensorView(name: info.name, type: info.type, shape: info.shape,
                          data: base + info.offset, byteCount: info.byteCount, owner: region)
    }

    /// `general.architecture`, e.g. `llama` or `gemma3`.
    package var architecture: String? { string("general.architecture") }
}
