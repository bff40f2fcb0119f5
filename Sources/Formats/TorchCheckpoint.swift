import Tensor

/// A PyTorch `torch.save` file holding a state dict, read without Python and without running
/// any pickled code (see `PickleMachine`). Tensors are zero-copy views into the file's bytes.
///
/// Legacy layout (torch < 1.6, or `_use_new_zipfile_serialization=False`), all pickles protocol 2:
/// ```
/// pickle   magic number, the int 0x1950a86a20f9469cfc6c
/// pickle   protocol version, the int 1001
/// pickle   sys_info dict {'protocol_version': 1001, 'little_endian': True, 'type_sizes': {...}}
/// pickle   the state dict: OrderedDict name → _rebuild_tensor_v2(storage, offset, size, stride, ...),
///          each storage a persistent id ('storage', torch.<T>Storage, key, location, numel, None)
/// pickle   list of storage keys, in the order their bytes follow
/// per key  i64 LE element count, then that many little-endian elements
/// ```
/// Zip layout (torch ≥ 1.6): a zip archive (stored, uncompressed entries) with `<root>/data.pkl`,
/// the same state-dict pickle with persistent ids ('storage', type, key, location, numel), and
/// one entry `<root>/data/<key>` per storage holding its raw little-endian elements.
///
/// `@unchecked Sendable`: `bytes` points into `owner`'s immutable storage, kept alive here.
package struct TorchCheckpoint: @unchecked Sendable {
    package enum Layout: Sendable, Equatable { case legacy, zip }

    package let layout: Layout
    /// Tensor names in the state dict's order.
    package let names: [String]
    package let tensorInfos: [String: TorchTensorInfo]
    private let owner: AnyObject
    private let bytes: UnsafeRawBufferPointer

    /// Maps the file at `path` and reads its index (not its tensor bytes).
    package static func open(path: String) throws(FormatError) -> TorchCheckpoint {
        let region: MappedRegion
        do { region = try MappedRegion(path: path) } catch { throw .io(error) }
        return try TorchCheckpoint(bytes: region.bytes, owner: region)
    }

    /// Reads a checkpoint held in memory (tests, downloads not yet on disk).
    package init(data: [UInt8]) throws(FormatError) {
        let buffer = OwnedBuffer(bytes: data)
        try self.init(bytes: UnsafeRawBufferPointer(start: buffer.pointer, count: data.count), owner: buffer)
    }

    init(bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(FormatError) {
        self.owner = owner
        self.bytes = bytes
        let isZip = bytes.count >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B && bytes[2] == 0x03 && bytes[3] == 0x04
        let (names, infos) = isZip ? try Self.readZip(bytes) : try Self.readLegacy(bytes)
        self.layout = isZip ? .zip : .legacy
        self.names = names
        self.tensorInfos = infos
    }

    /// A zero-copy view of tensor `name`, shape in ggml order (innermost first).
    package func tensor(_ name: String) throws(FormatError) -> TensorView {
        guard let info = tensorInfos[name], let base = bytes.baseAddress else { throw .missingTensor(name: name) }
        guard let type = info.dtype.ggmlType else { throw .unsupportedDType(name: name, dtype: info.dtype.rawValue) }
        guard info.isContiguous else { throw .invalidDimensions(name: name, dims: info.shape.map { UInt64($0) }) }
        return TensorView(name: name, type: type, shape: info.shape.isEmpty ? [1] : info.shape.reversed(),
                          data: base + info.offset, byteCount: info.byteCount, owner: owner)
    }

    /// The elements of an f32 tensor, gathered into row-major order whatever its strides
    /// (checkpoints converted from TensorFlow keep convolution weights in HWIO memory order
    /// behind an OIHW shape).
    package func floats(_ name: String) throws(FormatError) -> [Float] {
        guard let info = tensorInfos[name], let base = bytes.baseAddress else { throw .missingTensor(name: name) }
        guard info.dtype == .float32 else { throw .unsupportedDType(name: name, dtype: info.dtype.rawValue) }
        let source = base + info.offset
        let count = info.shape.reduce(1, *)
        if info.isContiguous {
            return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: source, byteCount: count * 4)
                initialized = count
            }
        }
        var out = [Float](repeating: 0, count: count)
        var index = [Int](repeating: 0, count: info.shape.count)
        for i in 0..<count {
            var element = 0
            for (d, stride) in info.strides.enumerated() { element += index[d] * stride }
            out[i] = source.loadUnaligned(fromByteOffset: element * 4, as: Float.self)
            var d = info.shape.count - 1  // odometer increment, innermost dimension first
            while d >= 0 {
                index[d] += 1
                if index[d] < info.shape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
        return out
    }

    // MARK: - Shared: the state dict

    /// Turns the state-dict pickle's value into tensor infos, given where each storage's elements
    /// start (absolute offset) and how many elements the file holds for it.
    static func tensors(of value: PickleValue, storages: [String: (offset: Int, count: Int)], at: Int)
        throws(FormatError) -> (names: [String], infos: [String: TorchTensorInfo]) {
        guard case .dict(let dict) = value else { throw .pickleMalformed(detail: "the top-level value is not a dict", offset: at) }
        var names: [String] = [], infos: [String: TorchTensorInfo] = [:]
        for (key, entry) in dict.entries {
            guard case .string(let name) = key else { throw .pickleMalformed(detail: "a state-dict key is not a string", offset: at) }
            guard case .tensor(let t) = entry else { throw .pickleMalformed(detail: "'\(name)' is not a tensor", offset: at) }
            guard let storage = storages[t.storage.key] else {
                throw .pickleMalformed(detail: "'\(name)': storage '\(t.storage.key)' is not in the file", offset: at)
            }
            guard infos[name] == nil else { throw .duplicateTensor(name: name) }
            // The furthest element a view reaches: offset + Σ (size-1)·stride, when no size is 0.
            var extent = t.shape.contains(0) ? 0 : 1
            var elements = 1
            for (size, stride) in zip(t.shape, t.strides) where extent > 0 {
                let (reach, o1) = (size - 1).multipliedReportingOverflow(by: stride)
                let (sum, o2) = extent.addingReportingOverflow(reach)
                guard !o1, !o2 else { throw .invalidDimensions(name: name, dims: t.shape.map { UInt64($0) }) }
                extent = sum
            }
            for size in t.shape {
                let (p, o) = elements.multipliedReportingOverflow(by: size)
                guard !o else { throw .invalidDimensions(name: name, dims: t.shape.map { UInt64($0) }) }
                elements = p
            }
            guard t.storageOffset <= storage.count, extent <= storage.count - t.storageOffset else {
                let size = t.storage.type.elementSize
                throw .tensorOutOfBounds(name: name, offset: storage.offset + t.storageOffset * size, size: extent * size,
                                         fileSize: storage.offset + storage.count * size)
            }
            let size = t.storage.type.elementSize
            names.append(name)
            infos[name] = TorchTensorInfo(name: name, dtype: t.storage.type, shape: t.shape, strides: t.strides,
                                          storageKey: t.storage.key, offset: storage.offset + t.storageOffset * size,
                                          byteCount: elements * size)
        }
        return (names, infos)
    }
}

/// Where one tensor of a torch checkpoint lives, checked against its storage.
package struct TorchTensorInfo: Sendable, Equatable {
    package let name: String
    package let dtype: TorchDType
    /// Row-major (torch) order: outermost first.
    package let shape: [Int]
    /// In elements, as torch reports `stride()`.
    package let strides: [Int]
    package let storageKey: String
    /// Absolute byte offset of the first element.
    package let offset: Int
    /// Bytes of `shape`'s elements when contiguous.
    package let byteCount: Int

    /// Row-major contiguous: every stride equals the product of the sizes inside it.
    package var isContiguous: Bool {
        var expected = 1
        for (size, stride) in zip(shape, strides).reversed() {
            if size != 1 && stride != expected { return false }
            expected *= size
        }
        return true
    }
}
