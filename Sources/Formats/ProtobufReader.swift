/// A bounds-checked reader of the protocol-buffers wire format over one message's bytes.
///
/// Wire layout (protobuf encoding spec): a message is a run of fields, each a varint key
/// `fieldNumber << 3 | wireType` followed by its value:
///   wire 0  varint: 7 bits per byte, low group first, high bit set on every byte but the last (≤ 10 bytes)
///   wire 1  8 bytes little-endian (fixed64, double)
///   wire 2  varint length, then that many bytes (strings, bytes, nested messages, packed repeated scalars)
///   wire 5  4 bytes little-endian (fixed32, float)
///   wires 3/4 are the deprecated groups, which ONNX never writes; they are rejected.
/// `offset` is absolute in the file, so every error says where the bad byte is.
struct ProtobufReader {
    enum WireType: UInt8 { case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5 }

    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int
    /// One past the last byte of the message being read.
    let end: Int

    init(bytes: UnsafeRawBufferPointer, offset: Int, end: Int) {
        self.bytes = bytes
        self.offset = offset
        self.end = end
    }

    var isAtEnd: Bool { offset >= end }

    mutating func readVarint(_ field: @autoclosure () -> String) throws(FormatError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        let start = offset
        while true {
            guard offset < end else {
                throw .truncated(field: field(), offset: start, needed: offset - start + 1, fileSize: bytes.count)
            }
            let byte = bytes[offset]
            offset += 1
            guard shift < 64 else { throw .malformedVarint(field: field(), offset: start) }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// The next field's number and wire type.
    mutating func readKey(_ message: @autoclosure () -> String) throws(FormatError) -> (field: Int, wire: WireType) {
        let at = offset
        let key = try readVarint("\(message()) field key")
        guard let wire = WireType(rawValue: UInt8(key & 7)) else {
            throw .wrongWireType(field: "\(message()) field \(key >> 3)", expected: nil, found: UInt8(key & 7), offset: at)
        }
        guard key >> 3 > 0, key >> 3 <= UInt64(Int32.max) else { throw .malformedVarint(field: "\(message()) field key", offset: at) }
        return (Int(key >> 3), wire)
    }

    /// The byte range of a length-delimited value, checked against the enclosing message.
    mutating func readLength(_ field: @autoclosure () -> String) throws(FormatError) -> Range<Int> {
        let at = offset
        let length = try readVarint(field())
        guard length <= UInt64(end - offset) else {
            throw .truncated(field: field(), offset: at, needed: Int(clamping: length), fileSize: bytes.count)
        }
        let start = offset
        offset += Int(length)
        return start..<offset
    }

    mutating func readFixed32(_ field: @autoclosure () -> String) throws(FormatError) -> UInt32 {
        guard end - offset >= 4 else { throw .truncated(field: field(), offset: offset, needed: 4, fileSize: bytes.count) }
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        return UInt32(littleEndian: value)
    }

    mutating func readString(_ field: @autoclosure () -> String) throws(FormatError) -> String {
        let range = try readLength(field())
        let slice = UnsafeRawBufferPointer(rebasing: bytes[range]).assumingMemoryBound(to: UInt8.self)
        guard UTF8Validator.isValid(slice) else { throw .invalidUTF8(field: field(), offset: range.lowerBound) }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Skips a field this reader does not use.
    mutating func skip(_ wire: WireType, _ field: @autoclosure () -> String) throws(FormatError) {
        switch wire {
        case .varint: _ = try readVarint(field())
        case .fixed64:
            guard end - offset >= 8 else { throw .truncated(field: field(), offset: offset, needed: 8, fileSize: bytes.count) }
            offset += 8
        case .lengthDelimited: _ = try readLength(field())
        case .fixed32: _ = try readFixed32(field())
        }
    }

    /// Checks that a known field arrived with the wire type its schema gives it.
    func expect(_ wire: WireType, _ expected: WireType, _ field: @autoclosure () -> String) throws(FormatError) {
        guard wire == expected else {
            throw .wrongWireType(field: field(), expected: expected.rawValue, found: wire.rawValue, offset: offset)
        }
    }

    /// A repeated integer field, packed (wire 2) or one value per key (wire 0).
    mutating func readInts(_ wire: WireType, into values: inout [Int64], _ field: @autoclosure () -> String) throws(FormatError) {
        switch wire {
        case .varint: values.append(Int64(bitPattern: try readVarint(field())))
        case .lengthDelimited:
            let range = try readLength(field())
            var inner = ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
            while !inner.isAtEnd { values.append(Int64(bitPattern: try inner.readVarint(field()))) }
        default: throw .wrongWireType(field: field(), expected: WireType.varint.rawValue, found: wire.rawValue, offset: offset)
        }
    }

    /// A repeated float field, packed (wire 2) or one value per key (wire 5).
    mutating func readFloats(_ wire: WireType, into values: inout [Float], _ field: @autoclosure () -> String) throws(FormatError) {
        switch wire {
        case .fixed32: values.append(Float(bitPattern: try readFixed32(field())))
        case .lengthDelimited:
            let range = try readLength(field())
            guard range.count % 4 == 0 else {
                throw .invalidHeader(format: "ONNX", detail: "\(field()): packed floats of \(range.count) bytes at offset \(range.lowerBound)")
            }
            var inner = ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
            while !inner.isAtEnd { values.append(Float(bitPattern: try inner.readFixed32(field()))) }
        default: throw .wrongWireType(field: field(), expected: WireType.fixed32.rawValue, found: wire.rawValue, offset: offset)
        }
    }
}
