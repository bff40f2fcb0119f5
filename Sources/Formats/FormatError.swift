import Tensor

/// Why a model file could not be read. Every case says what was wrong and where.
///
/// Offsets are absolute byte offsets in the file; `field` names the value being read
/// (for example `metadata 'general.name' value` or `tensor 'output.weight' dims`).
package enum FormatError: Error, Sendable, Equatable {
    /// Opening or mapping the file failed.
    case io(TensorError)
    /// A fixed-size field needs `needed` bytes at `offset` but the file ends first.
    case truncated(field: String, offset: Int, needed: Int, fileSize: Int)
    /// The file does not start with the format's magic bytes.
    case badMagic(found: [UInt8])
    /// A GGUF version other than 2 or 3 (v1 used 32-bit counts and is not read).
    case unsupportedVersion(UInt32)
    /// A metadata value type id outside the GGUF table.
    case invalidValueType(raw: UInt32, key: String, offset: Int)
    /// A count or length that cannot fit in the bytes left in the file.
    case absurdCount(field: String, count: UInt64, offset: Int)
    /// A string that is not valid UTF-8.
    case invalidUTF8(field: String, offset: Int)
    /// A bool byte other than 0 or 1.
    case invalidBool(field: String, offset: Int, raw: UInt8)
    /// Arrays nested deeper than the reader allows.
    case nestingTooDeep(key: String, offset: Int)
    /// `general.alignment` is zero, not a power of two, or too large.
    case invalidAlignment(value: UInt64)
    /// A tensor's bytes extend past the end of the file (`offset` absolute).
    case tensorOutOfBounds(name: String, offset: Int, size: Int, fileSize: Int)
    /// A tensor's data offset (relative to the data section) is not a multiple of the alignment.
    case misalignedTensor(name: String, offset: UInt64, alignment: Int)
    /// A tensor type id this reader does not know.
    case unsupportedTensorType(name: String, rawType: UInt32)
    /// A tensor with more than four dimensions.
    case tooManyDimensions(name: String, count: UInt32, offset: Int)
    /// Dimensions that are negative as signed values or whose product or byte size overflows.
    case invalidDimensions(name: String, dims: [UInt64])
    /// A row length that is not a whole number of the type's blocks.
    case partialBlock(name: String, rowLength: Int, blockSize: Int)
    /// Two tensors with the same name.
    case duplicateTensor(name: String)
    /// Two metadata entries with the same key.
    case duplicateKey(key: String)
    /// A tensor the caller asked for is not in the file.
    case missingTensor(name: String)
    /// A metadata key the caller requires is not in the file.
    case missingMetadata(key: String)
    /// A metadata key holds a value of another type than the caller requires.
    case wrongMetadataType(key: String, expected: String, found: String)
    /// A header that is not what the format requires (safetensors JSON, CTranslate2 spec, ...).
    case invalidHeader(format: String, detail: String)
    /// A safetensors dtype the reader does not know.
    case unsupportedDType(name: String, dtype: String)
    /// A pickle opcode outside what tensor state dicts use (code execution, extension registry...).
    case pickleOpcodeRefused(opcode: UInt8, offset: Int)
    /// A pickle global other than the few a state dict needs (OrderedDict, tensor rebuild, storages).
    case pickleGlobalRefused(module: String, name: String, offset: Int)
    /// A pickle that is well-formed opcode by opcode but not a state dict (stack underflow,
    /// wrong argument types, a tensor outside its storage...).
    case pickleMalformed(detail: String, offset: Int)
    /// A protobuf field arrived with another wire type than its schema gives it (`expected` nil: no
    /// wire type has that number).
    case wrongWireType(field: String, expected: UInt8?, found: UInt8, offset: Int)
    /// A protobuf varint longer than 10 bytes, or a field key with field number 0.
    case malformedVarint(field: String, offset: Int)
    /// An index stored in the file (a tensor, buffer or operator code number) that names nothing:
    /// `count` things exist.
    case indexOutOfRange(field: String, index: Int, count: Int)
}

extension FormatError: CustomStringConvertible {
    /// One line for logs and the CLI.
    package var description: String {
        switch self {
        case .io(let error): "cannot read file: \(error)"
        case let .truncated(field, offset, needed, fileSize):
            "truncated file: \(field) needs \(needed) bytes at offset \(offset), file has \(fileSize)"
        case .badMagic(let found): "not a GGUF file (magic \(found))"
        case .unsupportedVersion(let version): "unsupported GGUF version \(version) (2 and 3 are read)"
        case let .invalidValueType(raw, key, offset): "metadata '\(key)': unknown value type \(raw) at offset \(offset)"
        case let .absurdCount(field, count, offset): "\(field): count \(count) at offset \(offset) exceeds the file"
        case let .invalidUTF8(field, offset): "\(field): invalid UTF-8 at offset \(offset)"
        case let .invalidBool(field, offset, raw): "\(field): bool byte \(raw) at offset \(offset)"
        case let .nestingTooDeep(key, offset): "metadata '\(key)': arrays nested too deep at offset \(offset)"
        case .invalidAlignment(let value): "general.alignment \(value) is not a usable power of two"
        case let .tensorOutOfBounds(name, offset, size, fileSize):
            "tensor '\(name)': \(size) bytes at offset \(offset) extend past the file end (\(fileSize))"
        case let .misalignedTensor(name, offset, alignment):
            "tensor '\(name)': data offset \(offset) is not a multiple of \(alignment)"
        case let .unsupportedTensorType(name, rawType): "tensor '\(name)': unsupported type id \(rawType)"
        case let .tooManyDimensions(name, count, offset): "tensor '\(name)': \(count) dimensions at offset \(offset) (at most 4)"
        case let .invalidDimensions(name, dims): "tensor '\(name)': invalid dimensions \(dims)"
        case let .partialBlock(name, rowLength, blockSize):
            "tensor '\(name)': row length \(rowLength) is not a multiple of block size \(blockSize)"
        case .duplicateTensor(let name): "duplicate tensor '\(name)'"
        case .duplicateKey(let key): "duplicate metadata key '\(key)'"
        case .missingTensor(let name): "missing tensor '\(name)'"
        case .missingMetadata(let key): "missing metadata '\(key)'"
        case let .wrongMetadataType(key, expected, found): "metadata '\(key)': expected \(expected), found \(found)"
        case let .invalidHeader(format, detail): "invalid \(format) file: \(detail)"
        case let .unsupportedDType(name, dtype): "tensor '\(name)': unsupported dtype \(dtype)"
        case let .pickleOpcodeRefused(opcode, offset):
            "pickle opcode 0x\(String(opcode, radix: 16)) at offset \(offset) is refused (state dicts do not use it)"
        case let .pickleGlobalRefused(module, name, offset):
            "pickle global '\(module).\(name)' at offset \(offset) is refused (only tensors and plain containers are read)"
        case let .pickleMalformed(detail, offset): "malformed pickle at offset \(offset): \(detail)"
        case let .wrongWireType(field, expected, found, offset):
            "\(field): wire type \(found) at offset \(offset)" + (expected.map { ", expected \($0)" } ?? " is not a protobuf wire type")
        case let .malformedVarint(field, offset): "\(field): malformed varint at offset \(offset)"
        case let .indexOutOfRange(field, index, count): "\(field): index \(index) out of range (\(count) exist)"
        }
    }
}
