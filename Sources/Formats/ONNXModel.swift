import Tensor

/// The parts of an ONNX model file (`ModelProto`) an engine with its own implementation of the
/// network needs: the weights (graph initializers) and the nodes that say how they are used.
/// This is a reader, not a runtime: nothing here evaluates the graph.
///
/// Messages and field numbers read (onnx/onnx.proto, IR version 3+; anything else is skipped):
///   ModelProto      1 ir_version varint · 7 graph GraphProto · 14 metadata_props StringStringEntryProto*
///   StringStringEntryProto  1 key string · 2 value string
///   GraphProto      1 node NodeProto (repeated) · 5 initializer TensorProto (repeated) ·
///                   11 input ValueInfoProto* · 12 output ValueInfoProto*
///   ValueInfoProto  1 name string
///   NodeProto       1 input string* · 2 output string* · 3 name string · 4 op_type string ·
///                   5 attribute AttributeProto*
///   AttributeProto  1 name string · 2 f fixed32 float · 3 i varint · 4 s bytes · 5 t TensorProto ·
///                   7 floats (packed or repeated fixed32) · 8 ints (packed or repeated varint)
///   TensorProto     1 dims int64* · 2 data_type varint · 4 float_data · 5 int32_data · 7 int64_data ·
///                   8 name string · 9 raw_data bytes (little-endian, row-major) · 14 data_location
/// Tensors stored outside the file (data_location 1 = EXTERNAL) are rejected.
package final class ONNXModel: Sendable {
    package let region: MappedRegion
    package let irVersion: Int64
    /// The graph's weights by name.
    package let initializers: [String: ONNXTensor]
    /// The graph's nodes in file (topological) order.
    package let nodes: [ONNXNode]
    /// The graph's declared inputs and outputs, by name, in file order (inputs may include
    /// initializers in IR < 4 files).
    package let inputNames: [String]
    package let outputNames: [String]
    /// `metadata_props`: free-form key/value strings the exporter attached to the model.
    package let metadata: [String: String]

    package convenience init(path: String) throws(FormatError) {
        let region: MappedRegion
        do { region = try MappedRegion(path: path) } catch { throw .io(error) }
        try self.init(region: region)
    }

    package init(region: MappedRegion) throws(FormatError) {
        self.region = region
        let bytes = region.bytes
        var reader = ProtobufReader(bytes: bytes, offset: 0, end: bytes.count)
        var irVersion: Int64?
        var graph: Range<Int>?
        var metadata: [String: String] = [:]
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey("ModelProto")
            switch field {
            case 1:
                try reader.expect(wire, .varint, "ModelProto.ir_version")
                irVersion = Int64(bitPattern: try reader.readVarint("ModelProto.ir_version"))
            case 7:
                try reader.expect(wire, .lengthDelimited, "ModelProto.graph")
                graph = try reader.readLength("ModelProto.graph")
            case 14:
                try reader.expect(wire, .lengthDelimited, "ModelProto.metadata_props")
                let entry = try reader.readLength("ModelProto.metadata_props")
                let (key, value) = try Self.stringPair(bytes: bytes, range: entry)
                metadata[key] = value
            default: try reader.skip(wire, "ModelProto field \(field)")
            }
        }
        guard let irVersion, let graph else {
            throw .invalidHeader(format: "ONNX", detail: irVersion == nil ? "no ir_version" : "no graph")
        }
        self.irVersion = irVersion
        var initializers: [String: ONNXTensor] = [:]
        var nodes: [ONNXNode] = []
        var inputNames: [String] = [], outputNames: [String] = []
        var graphReader = ProtobufReader(bytes: bytes, offset: graph.lowerBound, end: graph.upperBound)
        while !graphReader.isAtEnd {
            let (field, wire) = try graphReader.readKey("GraphProto")
            switch field {
            case 1:
                try graphReader.expect(wire, .lengthDelimited, "GraphProto.node")
                let range = try graphReader.readLength("GraphProto.node")
                nodes.append(try ONNXNode(bytes: bytes, range: range))
            case 5:
                try graphReader.expect(wire, .lengthDelimited, "GraphProto.initializer")
                let range = try graphReader.readLength("GraphProto.initializer")
                let tensor = try ONNXTensor(bytes: bytes, range: range)
                guard initializers[tensor.name] == nil else { throw .duplicateTensor(name: tensor.name) }
                initializers[tensor.name] = tensor
            case 11, 12:
                let label = field == 11 ? "GraphProto.input" : "GraphProto.output"
                try graphReader.expect(wire, .lengthDelimited, label)
                let name = try Self.valueInfoName(bytes: bytes, range: try graphReader.readLength(label))
                if field == 11 { inputNames.append(name) } else { outputNames.append(name) }
            default: try graphReader.skip(wire, "GraphProto field \(field)")
            }
        }
        self.initializers = initializers
        self.nodes = nodes
        self.inputNames = inputNames
        self.outputNames = outputNames
        self.metadata = metadata
    }

    private static func stringPair(bytes: UnsafeRawBufferPointer, range: Range<Int>) throws(FormatError) -> (String, String) {
        var reader = ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        var key = "", value = ""
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey("StringStringEntryProto")
            switch field {
            case 1, 2:
                try reader.expect(wire, .lengthDelimited, "metadata_props entry '\(key)'")
                let text = try reader.readString("metadata_props entry '\(key)'")
                if field == 1 { key = text } else { value = text }
            default: try reader.skip(wire, "StringStringEntryProto field \(field)")
            }
        }
        return (key, value)
    }

    private static func valueInfoName(bytes: UnsafeRawBufferPointer, range: Range<Int>) throws(FormatError) -> String {
        var reader = ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        var name = ""
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey("ValueInfoProto")
            if field == 1 {
                try reader.expect(wire, .lengthDelimited, "ValueInfoProto.name")
                name = try reader.readString("ValueInfoProto.name")
            } else {
                try reader.skip(wire, "ValueInfoProto field \(field)")
            }
        }
        return name
    }

    /// An initializer's values as f32 (FLOAT tensors only), checked against `shape` when given.
    package func floats(_ name: String, shape: [Int]? = nil) throws(FormatError) -> [Float] {
        guard let tensor = initializers[name] else { throw .missingTensor(name: name) }
        if let shape, shape != tensor.dims { throw .invalidDimensions(name: name, dims: tensor.dims.map { UInt64(clamping: $0) }) }
        return try tensor.floats(in: region.bytes)
    }
}
