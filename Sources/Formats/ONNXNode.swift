/// One graph node: which operator, which values it reads and writes, and its attributes.
package struct ONNXNode: Sendable, Equatable {
    package enum Attribute: Sendable, Equatable {
        case int(Int64)
        case float(Float)
        case ints([Int64])
        case floats([Float])
        case bytes(Range<Int>)
        /// A tensor value (`Constant` nodes keep their weights here).
        case tensor(ONNXTensor)
        /// Graphs and other kinds this reader does not decode.
        case other
    }

    package let name: String
    package let opType: String
    package let inputs: [String]
    package let outputs: [String]
    package let attributes: [String: Attribute]

    /// An integer attribute, or nil when absent or of another kind.
    package func int(_ key: String) -> Int? {
        if case .int(let value) = attributes[key] { return Int(clamping: value) }
        return nil
    }

    /// A float attribute, or nil when absent or of another kind.
    package func float(_ key: String) -> Float? {
        if case .float(let value) = attributes[key] { return value }
        return nil
    }

    /// An integer-list attribute (`dilations`, `pads`, ...), or nil when absent or of another kind.
    package func ints(_ key: String) -> [Int]? {
        if case .ints(let values) = attributes[key] { return values.map { Int(clamping: $0) } }
        return nil
    }

    init(bytes: UnsafeRawBufferPointer, range: Range<Int>) throws(FormatError) {
        var reader = ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        var name = "", opType = "", inputs: [String] = [], outputs: [String] = []
        var attributes: [String: Attribute] = [:]
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey("NodeProto '\(name)'")
            switch field {
            case 1, 2, 3, 4:
                let label = ["input", "output", "name", "op_type"][field - 1]
                try reader.expect(wire, .lengthDelimited, "NodeProto '\(name)'.\(label)")
                let text = try reader.readString("NodeProto '\(name)'.\(label)")
                switch field {
                case 1: inputs.append(text)
                case 2: outputs.append(text)
                case 3: name = text
                default: opType = text
                }
            case 5:
                try reader.expect(wire, .lengthDelimited, "NodeProto '\(name)'.attribute")
                let (key, value) = try Self.attribute(bytes: bytes, range: try reader.readLength("NodeProto '\(name)'.attribute"), node: name)
                attributes[key] = value
            default: try reader.skip(wire, "NodeProto '\(name)' field \(field)")
            }
        }
        self.name = name
        self.opType = opType
        self.inputs = inputs
        self.outputs = outputs
        self.attributes = attributes
    }

    private static func attribute(bytes: UnsafeRawBufferPointer, range: Range<Int>, node: String) throws(FormatError) -> (String, Attribute) {
        var reader = ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        var key = "", value = Attribute.other, ints: [Int64] = [], floats: [Float] = []
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey("AttributeProto of node '\(node)'")
            let label = "node '\(node)' attribute '\(key)'"
            switch field {
            case 1:
                try reader.expect(wire, .lengthDelimited, "\(label).name")
                key = try reader.readString("\(label).name")
            case 2:
                try reader.expect(wire, .fixed32, "\(label).f")
                value = .float(Float(bitPattern: try reader.readFixed32("\(label).f")))
            case 3:
                try reader.expect(wire, .varint, "\(label).i")
                value = .int(Int64(bitPattern: try reader.readVarint("\(label).i")))
            case 4:
                try reader.expect(wire, .lengthDelimited, "\(label).s")
                value = .bytes(try reader.readLength("\(label).s"))
            case 5:
                try reader.expect(wire, .lengthDelimited, "\(label).t")
                value = .tensor(try ONNXTensor(bytes: bytes, range: try reader.readLength("\(label).t")))
            case 7: try reader.readFloats(wire, into: &floats, "\(label).floats")
            case 8: try reader.readInts(wire, into: &ints, "\(label).ints")
            default: try reader.skip(wire, "\(label) field \(field)")
            }
        }
        if !ints.isEmpty { value = .ints(ints) } else if !floats.isEmpty { value = .floats(floats) }
        return (key, value)
    }
}
