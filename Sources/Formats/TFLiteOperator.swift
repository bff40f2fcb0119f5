/// TFLite `BuiltinOperator` codes of the float vision graphs this project reads (schema.fbs numbering).
package enum TFLiteBuiltin: Int32, Sendable, Equatable, CaseIterable {
    case add = 0, averagePool2D = 1, concatenation = 2, conv2D = 3, depthwiseConv2D = 4, dequantize = 6
    case fullyConnected = 9, logistic = 14, maxPool2D = 17, mul = 18, relu = 19, relu6 = 21, reshape = 22
    case resizeBilinear = 23, softmax = 25, tanh = 28, custom = 32, pad = 34, prelu = 54, hardSwish = 117

    /// The schema's spelling, as tools print it.
    package var schemaName: String {
        switch self {
        case .add: "ADD"
        case .averagePool2D: "AVERAGE_POOL_2D"
        case .concatenation: "CONCATENATION"
        case .conv2D: "CONV_2D"
        case .depthwiseConv2D: "DEPTHWISE_CONV_2D"
        case .dequantize: "DEQUANTIZE"
        case .fullyConnected: "FULLY_CONNECTED"
        case .logistic: "LOGISTIC"
        case .maxPool2D: "MAX_POOL_2D"
        case .mul: "MUL"
        case .relu: "RELU"
        case .relu6: "RELU6"
        case .reshape: "RESHAPE"
        case .resizeBilinear: "RESIZE_BILINEAR"
        case .softmax: "SOFTMAX"
        case .tanh: "TANH"
        case .custom: "CUSTOM"
        case .pad: "PAD"
        case .prelu: "PRELU"
        case .hardSwish: "HARD_SWISH"
        }
    }
}

/// What an operator code names: a builtin this reader knows, a custom operator by name, or a
/// builtin code outside `TFLiteBuiltin` (kept so a tool can report it; nothing runs it).
package enum TFLiteOpcode: Sendable, Equatable, CustomStringConvertible {
    case builtin(TFLiteBuiltin)
    case custom(String)
    case unknown(Int32)

    package var description: String {
        switch self {
        case .builtin(let op): op.schemaName
        case .custom(let name): "CUSTOM:\(name)"
        case .unknown(let code): "BUILTIN_\(code)"
        }
    }
}

/// `ActivationFunctionType` fused into an operator's output.
package enum TFLiteActivation: Int8, Sendable, Equatable {
    case none = 0, relu = 1, reluN1To1 = 2, relu6 = 3, tanh = 4, signBit = 5
}

/// `Padding`: SAME pads so that output = ceil(input / stride); VALID does not pad.
package enum TFLitePadding: Int8, Sendable, Equatable {
    case same = 0, valid = 1
}

/// Convolution geometry shared by CONV_2D and DEPTHWISE_CONV_2D.
package struct TFLiteConvolution: Sendable, Equatable {
    package var padding: TFLitePadding
    package var strideW: Int, strideH: Int
    package var dilationW: Int, dilationH: Int
    /// Output channels per input channel (DEPTHWISE_CONV_2D only; 1 for CONV_2D).
    package var depthMultiplier: Int
    package var activation: TFLiteActivation

    package init(padding: TFLitePadding, strideW: Int, strideH: Int, dilationW: Int, dilationH: Int,
                 depthMultiplier: Int, activation: TFLiteActivation) {
        self.padding = padding
        self.strideW = strideW
        self.strideH = strideH
        self.dilationW = dilationW
        self.dilationH = dilationH
        self.depthMultiplier = depthMultiplier
        self.activation = activation
    }
}

/// A pooling window (`Pool2DOptions`).
package struct TFLitePool: Sendable, Equatable {
    package var padding: TFLitePadding
    package var strideW: Int, strideH: Int
    package var filterW: Int, filterH: Int
    package var activation: TFLiteActivation

    package init(padding: TFLitePadding, strideW: Int, strideH: Int, filterW: Int, filterH: Int, activation: TFLiteActivation) {
        self.padding = padding
        self.strideW = strideW
        self.strideH = strideH
        self.filterW = filterW
        self.filterH = filterH
        self.activation = activation
    }
}

/// The builtin options an operator carries, for the option tables the vision graphs use; any
/// other options table is kept as its union type number.
package enum TFLiteOptions: Sendable, Equatable {
    case none
    case conv2D(TFLiteConvolution)
    case depthwiseConv2D(TFLiteConvolution)
    case pool2D(TFLitePool)
    case concatenation(axis: Int, activation: TFLiteActivation)
    case add(activation: TFLiteActivation)
    case mul(activation: TFLiteActivation)
    case reshape(newShape: [Int])
    case pad
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    case other(unionType: UInt8)

    /// Reads the options table of union type `type` (BuiltinOptions numbering in schema.fbs):
    ///   1 Conv2DOptions          0 padding · 1 stride_w · 2 stride_h · 3 fused_activation_function ·
    ///                            4 dilation_w_factor (1) · 5 dilation_h_factor (1)
    ///   2 DepthwiseConv2DOptions 0 padding · 1 stride_w · 2 stride_h · 3 depth_multiplier ·
    ///                            4 fused_activation_function · 5 dilation_w_factor (1) · 6 dilation_h_factor (1)
    ///   5 Pool2DOptions          0 padding · 1 stride_w · 2 stride_h · 3 filter_width · 4 filter_height ·
    ///                            5 fused_activation_function
    ///   10 ConcatenationOptions  0 axis · 1 fused_activation_function
    ///   11 AddOptions            0 fused_activation_function
    ///   15 ResizeBilinearOptions 0 new_height, 1 new_width (deprecated, unread) · 2 align_corners bool ·
    ///                            3 half_pixel_centers bool
    ///   17 ReshapeOptions        0 new_shape [int]
    ///   21 MulOptions            0 fused_activation_function
    ///   22 PadOptions            no fields
    /// Strides, dilations, filter sizes and multipliers must be at least 1.
    init(type: UInt8, table: FlatBufferTable?) throws(FormatError) {
        guard type != 0 else { self = .none; return }
        guard let table else {
            throw .invalidHeader(format: "TFLite", detail: "options type \(type) without an options table")
        }
        func positive(_ slot: Int, _ field: String, default value: Int32 = 0) throws(FormatError) -> Int {
            let v = try table.scalar(slot, field, default: value)
            guard v >= 1 else { throw .invalidHeader(format: "TFLite", detail: "\(table.name).\(field) is \(v), at least 1 expected") }
            return Int(v)
        }
        func activation(_ slot: Int) throws(FormatError) -> TFLiteActivation {
            let raw = try table.scalar(slot, "fused_activation_function", default: Int8(0))
            guard let value = TFLiteActivation(rawValue: raw) else {
                throw .invalidHeader(format: "TFLite", detail: "\(table.name): unknown activation \(raw)")
            }
            return value
        }
        func padding() throws(FormatError) -> TFLitePadding {
            let raw = try table.scalar(0, "padding", default: Int8(0))
            guard let value = TFLitePadding(rawValue: raw) else {
                throw .invalidHeader(format: "TFLite", detail: "\(table.name): unknown padding \(raw)")
            }
            return value
        }
        switch type {
        case 1:
            self = .conv2D(TFLiteConvolution(
                padding: try padding(), strideW: try positive(1, "stride_w"), strideH: try positive(2, "stride_h"),
                dilationW: try positive(4, "dilation_w_factor", default: 1), dilationH: try positive(5, "dilation_h_factor", default: 1),
                depthMultiplier: 1, activation: try activation(3)))
        case 2:
            self = .depthwiseConv2D(TFLiteConvolution(
                padding: try padding(), strideW: try positive(1, "stride_w"), strideH: try positive(2, "stride_h"),
                dilationW: try positive(5, "dilation_w_factor", default: 1), dilationH: try positive(6, "dilation_h_factor", default: 1),
                depthMultiplier: try positive(3, "depth_multiplier", default: 1), activation: try activation(4)))
        case 5:
            self = .pool2D(TFLitePool(
                padding: try padding(), strideW: try positive(1, "stride_w"), strideH: try positive(2, "stride_h"),
                filterW: try positive(3, "filter_width"), filterH: try positive(4, "filter_height"), activation: try activation(5)))
        case 10: self = .concatenation(axis: Int(try table.scalar(0, "axis", default: Int32(0))), activation: try activation(1))
        case 11: self = .add(activation: try activation(0))
        case 15:
            self = .resizeBilinear(alignCorners: try table.scalar(2, "align_corners", default: UInt8(0)) != 0,
                                   halfPixelCenters: try table.scalar(3, "half_pixel_centers", default: UInt8(0)) != 0)
        case 17: self = .reshape(newShape: try table.int32s(0, "new_shape").map(Int.init))
        case 21: self = .mul(activation: try activation(0))
        case 22: self = .pad
        default: self = .other(unionType: type)
        }
    }
}

/// One operator of a subgraph: what it is, its tensors (indices into the subgraph's tensors; -1
/// marks an omitted optional input) and its options.
package struct TFLiteOperator: Sendable, Equatable {
    package let opcode: TFLiteOpcode
    package let inputs: [Int]
    package let outputs: [Int]
    package let options: TFLiteOptions
    /// A custom operator's option bytes, as the file stores them (empty when absent).
    package let customOptions: [UInt8]

    /// Operator table fields: 0 opcode_index uint · 1 inputs [int] · 2 outputs [int] ·
    /// 3 builtin_options_type ubyte · 4 builtin_options (the union's table) · 5 custom_options [ubyte].
    init(table: FlatBufferTable, opcodes: [TFLiteOpcode], tensorCount: Int) throws(FormatError) {
        let index = Int(try table.scalar(0, "opcode_index", default: UInt32(0)))
        guard index < opcodes.count else {
            throw .indexOutOfRange(field: "\(table.name).opcode_index", index: index, count: opcodes.count)
        }
        opcode = opcodes[index]
        func tensors(_ slot: Int, _ field: String, optional: Bool) throws(FormatError) -> [Int] {
            let values = try table.int32s(slot, field).map(Int.init)
            for (i, v) in values.enumerated() where !(v >= 0 && v < tensorCount) && !(optional && v == -1) {
                throw .indexOutOfRange(field: "\(table.name).\(field)[\(i)]", index: v, count: tensorCount)
            }
            return values
        }
        inputs = try tensors(1, "inputs", optional: true)
        outputs = try tensors(2, "outputs", optional: false)
        let type = try table.scalar(3, "builtin_options_type", default: UInt8(0))
        options = try TFLiteOptions(type: type, table: try table.table(4, "builtin_options", name: "\(table.name).builtin_options"))
        customOptions = try table.bytes(5, "custom_options")
    }
}
