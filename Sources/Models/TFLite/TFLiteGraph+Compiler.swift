import Formats
import Kernels

extension TFLiteGraph {
    /// Turns operators into steps, one at a time in file order, tracking which tensors hold
    /// values so far: an operator may read only the graph input, constants and earlier outputs,
    /// and may write only a tensor nothing wrote before.
    struct Compiler {
        let model: TFLiteModel
        let graph: TFLiteSubgraph
        var steps: [Step] = []
        var constants: [Int: [Float]] = [:]
        var available: Set<Int>
        /// Values of all activations so far (a bound on what one run can allocate).
        var totalActivation = 0

        init(model: TFLiteModel, graph: TFLiteSubgraph) {
            self.model = model
            self.graph = graph
            available = [graph.inputs[0]]
        }

        mutating func compile(_ op: TFLiteOperator, index: Int) throws(ModelError) {
            let name = "\(op.opcode)"
            func fail(_ reason: String) -> ModelError { .unsupportedOperator(index: index, op: name, reason: reason) }
            let builtin: TFLiteBuiltin
            switch op.opcode {
            case .builtin(let b): builtin = b
            case .custom("Convolution2DTransposeBias"): builtin = .custom
            default: throw fail("not an operator this engine runs")
            }
            guard op.outputs.count == 1 else { throw fail("\(op.outputs.count) outputs (one expected)") }
            let output = op.outputs[0]
            let outShape = graph.tensors[output].shape
            guard !available.contains(output), constants[output] == nil, graph.tensors[output].data == nil else {
                throw fail("writes tensor '\(graph.tensors[output].name)', which already has a value")
            }
            guard graph.tensors[output].type == .float32, !graph.tensors[output].isQuantized else {
                throw fail("output '\(graph.tensors[output].name)' is \(graph.tensors[output].type), only FLOAT32 is computed")
            }
            guard outShape.allSatisfy({ $0 > 0 }) || builtin == .dequantize, outShape.reduce(1, *) <= TFLiteGraph.maxActivation else {
                throw fail("output of shape \(outShape) is empty or too large")
            }
            totalActivation += outShape.reduce(1, *)
            guard totalActivation <= TFLiteGraph.maxTotalActivation else { throw fail("the graph's activations exceed \(TFLiteGraph.maxTotalActivation) values") }

            /// Input `i` as an activation or constant this engine can read.
            func operand(_ i: Int) throws(ModelError) -> Int {
                guard i < op.inputs.count, op.inputs[i] >= 0 else { throw fail("input \(i) is missing") }
                let t = op.inputs[i]
                guard available.contains(t) || constants[t] != nil || graph.tensors[t].data != nil else {
                    throw fail("reads tensor '\(graph.tensors[t].name)' before any operator writes it")
                }
                return t
            }
            func shape(_ t: Int) -> [Int] { graph.tensors[t].shape }
            func expect(_ inferred: [Int]) throws(ModelError) {
                guard inferred == outShape else {
                    throw .shapeMismatch(tensor: graph.tensors[output].name, expected: inferred, found: outShape)
                }
            }

            switch builtin {
            case .dequantize:
                let source = try operand(0)
                guard let values = try constant(source) else { throw fail("dequantizes an activation (only constant weights are folded)") }
                try expect(shape(source))
                constants[output] = values
                return
            case .conv2D, .depthwiseConv2D:
                let x = try operand(0), w = try operand(1)
                guard let weight = try constant(w) else { throw fail("weights are not constant") }
                var bias: [Float]?
                if op.inputs.count > 2, op.inputs[2] >= 0 {
                    guard let b = try constant(try operand(2)) else { throw fail("bias is not constant") }
                    bias = b
                }
                let conv: TFLiteConvolution
                switch op.options {
                case .conv2D(let c) where builtin == .conv2D: conv = c
                case .depthwiseConv2D(let c) where builtin == .depthwiseConv2D: conv = c
                default: throw fail("options are \(op.options)")
                }
                let xs = shape(x), ws = shape(w)
                guard xs.count == 4, xs[0] == 1, ws.count == 4 else { throw fail("input \(xs), weights \(ws): NHWC batch 1 expected") }
                let depthwise = builtin == .depthwiseConv2D
                let outChannels = depthwise ? ws[3] : ws[0]
                guard ws[1] == ws[2], conv.strideW == conv.strideH, conv.dilationW == 1, conv.dilationH == 1 else {
                    throw fail("kernel \(ws[1])x\(ws[2]), stride \(conv.strideH)x\(conv.strideW), dilation \(conv.dilationH)x\(conv.dilationW): square, undilated expected")
                }
                guard depthwise ? (ws[0] == 1 && ws[3] == xs[3]) : ws[3] == xs[3] else {
                    throw fail("weights \(ws) do not fit input \(xs)" + (depthwise ? " (depth multiplier 1 expected)" : ""))
                }
                if let bias, bias.count != outChannels { throw fail("bias of \(bias.count) values for \(outChannels) channels") }
                let (window, outH, outW) = try Self.window(kernel: ws[1], stride: conv.strideH, padding: conv.padding,
                                                           height: xs[1], width: xs[2], fail: fail)
                try expect([1, outH, outW, outChannels])
                guard ws[1] == 1 || outH * outW * ws[1] * ws[2] * xs[3] <= TFLiteGraph.maxActivation else {
                    throw fail("im2col rows of \(outH * outW) x \(ws[1] * ws[2] * xs[3]) values are too large")
                }
                let clamp = try Self.clamp(conv.activation, fail: fail)
                steps.append(depthwise
                    ? .depthwise(input: x, output: output, weight: weight, bias: bias, window: window, clamp: clamp)
                    : .conv(input: x, output: output, weight: weight, bias: bias, window: window, clamp: clamp))
            case .maxPool2D, .averagePool2D:
                let x = try operand(0)
                guard case .pool2D(let p) = op.options, p.activation == .none else { throw fail("options are \(op.options)") }
                let xs = shape(x)
                guard xs.count == 4, xs[0] == 1 else { throw fail("input \(xs): NHWC batch 1 expected") }
                let (padTop, outH) = try Self.axis(input: xs[1], kernel: p.filterH, stride: p.strideH, padding: p.padding, fail: fail)
                let (padLeft, outW) = try Self.axis(input: xs[2], kernel: p.filterW, stride: p.strideW, padding: p.padding, fail: fail)
                try expect([1, outH, outW, xs[3]])
                steps.append(builtin == .maxPool2D
                    ? .maxPool(input: x, output: output, filterH: p.filterH, filterW: p.filterW,
                               strideH: p.strideH, strideW: p.strideW, padTop: padTop, padLeft: padLeft)
                    : .averagePool(input: x, output: output, filterH: p.filterH, filterW: p.filterW,
                                   strideH: p.strideH, strideW: p.strideW, padTop: padTop, padLeft: padLeft))
            case .hardSwish, .logistic:
                let x = try operand(0)
                try expect(shape(x))
                steps.append(builtin == .hardSwish ? .hardSwish(input: x, output: output) : .logistic(input: x, output: output))
            case .mul:
                let a = try operand(0), b = try operand(1)
                guard case .mul(let activation) = op.options else { throw fail("options are \(op.options)") }
                let sa = shape(a), sb = shape(b)
                guard sa.count <= 4, sb.count <= 4 else { throw fail("operands \(sa) and \(sb): rank ≤ 4 expected") }
                let pa = [Int](repeating: 1, count: 4 - sa.count) + sa, pb = [Int](repeating: 1, count: 4 - sb.count) + sb
                var inferred: [Int] = []
                for (x, y) in zip(pa, pb) {
                    guard x == y || x == 1 || y == 1 else { throw fail("operands \(sa) and \(sb) do not broadcast") }
                    inferred.append(max(x, y))
                }
                try expect(Array(inferred.suffix(max(sa.count, sb.count))))
                steps.append(.mul(a: a, b: b, output: output, clamp: try Self.clamp(activation, fail: fail)))
            case .resizeBilinear:
                let x = try operand(0), size = try operand(1)
                guard case .resizeBilinear(let alignCorners, let halfPixel) = op.options else { throw fail("options are \(op.options)") }
                guard !(alignCorners && halfPixel) else { throw fail("align_corners and half_pixel_centers both set") }
                let xs = shape(x)
                guard xs.count == 4, xs[0] == 1 else { throw fail("input \(xs): NHWC batch 1 expected") }
                guard let hw = try? model.int32s(graph.tensors[size]), hw.count == 2, hw.allSatisfy({ $0 >= 1 }) else {
                    throw fail("size must be a constant INT32 [2] of positive values")
                }
                try expect([1, Int(hw[0]), Int(hw[1]), xs[3]])
                steps.append(.resizeBilinear(input: x, output: output, alignCorners: alignCorners, halfPixelCenters: halfPixel))
            case .custom:
                // Convolution2DTransposeBias: inputs (input, weights OHWI, bias); custom options are
                // TFLite's TfLiteTransposeConvParams as raw little-endian int32s: padding (1 SAME,
                // 2 VALID), stride_width, stride_height (a trailing activation, if present, must be 0).
                let x = try operand(0), w = try operand(1), b = try operand(2)
                guard let weight = try constant(w), let bias = try constant(b) else { throw fail("weights or bias are not constant") }
                let raw = op.customOptions
                guard raw.count >= 12, raw.count % 4 == 0 else { throw fail("custom options of \(raw.count) bytes (12 or more expected)") }
                let ints = stride(from: 0, to: raw.count, by: 4).map { i in
                    Int32(bitPattern: UInt32(raw[i]) | UInt32(raw[i + 1]) << 8 | UInt32(raw[i + 2]) << 16 | UInt32(raw[i + 3]) << 24)
                }
                guard ints[0] == 1 || ints[0] == 2 else { throw fail("padding code \(ints[0]) (1 SAME or 2 VALID expected)") }
                guard (1...64).contains(ints[1]), (1...64).contains(ints[2]) else { throw fail("strides \(ints[1]) x \(ints[2])") }
                guard ints.dropFirst(3).allSatisfy({ $0 == 0 }) else { throw fail("fused activation \(ints[3]) is not implemented") }
                let (strideW, strideH) = (Int(ints[1]), Int(ints[2]))
                let xs = shape(x), ws = shape(w)
                guard xs.count == 4, xs[0] == 1, ws.count == 4, ws[3] == xs[3], ws[1] >= 1, ws[2] >= 1 else {
                    throw fail("input \(xs), weights \(ws): NHWC batch 1 and OHWI weights expected")
                }
                guard bias.count == ws[0] else { throw fail("bias of \(bias.count) values for \(ws[0]) channels") }
                let same = ints[0] == 1
                let outH = same ? xs[1] * strideH : (xs[1] - 1) * strideH + ws[1]
                let outW = same ? xs[2] * strideW : (xs[2] - 1) * strideW + ws[2]
                try expect([1, outH, outW, ws[0]])
                // TFLite's padding for a transposed convolution: the padding of the forward
                // convolution that maps the output size back to the input size.
                let padTop = same ? max((xs[1] - 1) * strideH + ws[1] - outH, 0) / 2 : 0
                let padLeft = same ? max((xs[2] - 1) * strideW + ws[2] - outW, 0) / 2 : 0
                steps.append(.transposeConv(input: x, output: output, weight: weight, bias: bias, kernelH: ws[1], kernelW: ws[2],
                                            strideH: strideH, strideW: strideW, padTop: padTop, padLeft: padLeft))
            case .pad:
                let x = try operand(0), p = try operand(1)
                let xs = shape(x)
                guard let paddings = try? model.int32s(graph.tensors[p]), graph.tensors[p].shape == [xs.count, 2], xs.count <= 4 else {
                    throw fail("paddings must be a constant INT32 [\(xs.count), 2] for a tensor of rank \(xs.count) ≤ 4")
                }
                guard paddings.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else { throw fail("paddings \(paddings)") }
                let lead = [Int](repeating: 0, count: 4 - xs.count)
                let before = lead + stride(from: 0, to: paddings.count, by: 2).map { Int(paddings[$0]) }
                let after = lead + stride(from: 1, to: paddings.count, by: 2).map { Int(paddings[$0]) }
                try expect(zip(xs, zip(before.suffix(xs.count), after.suffix(xs.count))).map { $0 + $1.0 + $1.1 })
                steps.append(.pad(input: x, output: output, before: before, after: after))
            case .add:
                let a = try operand(0), b = try operand(1)
                guard case .add(let activation) = op.options else { throw fail("options are \(op.options)") }
                let bs = shape(b), count = bs.reduce(1, *)
                guard bs == shape(a) || count == 1 || (count == shape(a).last && bs.last == count) else {
                    throw fail("adds \(bs) to \(shape(a)) (same shape, one per channel or one value expected)")
                }
                try expect(shape(a))
                steps.append(.add(a: a, b: b, output: output, clamp: try Self.clamp(activation, fail: fail)))
            case .relu:
                let x = try operand(0)
                try expect(shape(x))
                steps.append(.relu(input: x, output: output))
            case .prelu:
                let x = try operand(0), a = try operand(1)
                guard let alpha = try constant(a) else { throw fail("alpha is not constant") }
                guard let channels = shape(x).last, alpha.count == channels, shape(a).last == channels else {
                    throw fail("alpha \(shape(a)) for input \(shape(x)): one value per channel expected")
                }
                try expect(shape(x))
                steps.append(.prelu(input: x, output: output, alpha: alpha))
            case .reshape:
                let x = try operand(0)
                guard shape(x).reduce(1, *) == outShape.reduce(1, *) else {
                    throw .shapeMismatch(tensor: graph.tensors[output].name, expected: [shape(x).reduce(1, *)], found: outShape)
                }
                steps.append(.copy(input: x, output: output))
            case .concatenation:
                guard case .concatenation(let rawAxis, let activation) = op.options, activation == .none else {
                    throw fail("options are \(op.options)")
                }
                var inputs: [Int] = []
                for i in op.inputs.indices { inputs.append(try operand(i)) }
                guard let first = inputs.first else { throw fail("no inputs") }
                let rank = shape(first).count
                let axis = rawAxis < 0 ? rawAxis + rank : rawAxis
                guard axis >= 0, axis < rank else { throw fail("axis \(rawAxis) for rank \(rank)") }
                var inferred = shape(first)
                inferred[axis] = 0
                for t in inputs {
                    var s = shape(t)
                    guard s.count == rank else { throw fail("inputs of ranks \(rank) and \(s.count)") }
                    inferred[axis] += s[axis]
                    s[axis] = 0
                    var f = shape(first)
                    f[axis] = 0
                    guard s == f else { throw fail("inputs \(shape(first)) and \(shape(t)) differ off axis \(axis)") }
                }
                try expect(inferred)
                steps.append(.concat(inputs: inputs, output: output, axis: axis))
            default:
                throw fail("not implemented by this engine")
            }
            available.insert(output)
        }

        /// A constant's f32 values: float weights in the file or a folded DEQUANTIZE; nil for activations.
        func constant(_ t: Int) throws(ModelError) -> [Float]? {
            if let folded = constants[t] { return folded }
            let tensor = graph.tensors[t]
            guard tensor.data != nil, !available.contains(t) else { return nil }
            guard !tensor.isQuantized else { throw .unsupportedTensorType(tensor: tensor.name, type: "quantized \(tensor.type)") }
            do { return try model.floats(tensor) } catch { throw .format(error) }
        }

        /// The padding before and the output size along one axis (TFLite SAME: output
        /// ceil(input / stride), the smaller half of the padding first; VALID: no padding).
        static func axis(input: Int, kernel: Int, stride: Int, padding: TFLitePadding,
                         fail: (String) -> ModelError) throws(ModelError) -> (before: Int, output: Int) {
            switch padding {
            case .same:
                let s = Convolution.samePadding(input: input, kernel: kernel, stride: stride)
                return (s.before, s.output)
            case .valid:
                guard input >= kernel else { throw fail("window \(kernel) wider than its input \(input)") }
                return (0, (input - kernel) / stride + 1)
            }
        }

        static func window(kernel: Int, stride: Int, padding: TFLitePadding, height: Int, width: Int,
                           fail: (String) -> ModelError) throws(ModelError) -> (Convolution.Window, Int, Int) {
            let y = try axis(input: height, kernel: kernel, stride: stride, padding: padding, fail: fail)
            let x = try axis(input: width, kernel: kernel, stride: stride, padding: padding, fail: fail)
            return (Convolution.Window(kernel: kernel, stride: stride, padTop: y.before, padLeft: x.before), y.output, x.output)
        }

        static func clamp(_ activation: TFLiteActivation, fail: (String) -> ModelError) throws(ModelError) -> ClosedRange<Float>? {
            switch activation {
            case .none: nil
            case .relu: 0...Float.infinity
            case .relu6: 0...6
            case .reluN1To1: -1...1
            case .tanh, .signBit: throw fail("fused activation \(activation) is not implemented")
            }
        }
    }
}
