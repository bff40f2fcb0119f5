import Tensor

/// Plain Swift reference for the dot kernels: dequantize the weight row and the (already
/// quantized) activation row with `Dequantize.row`, then sum the products in Double. Slow and
/// allocating; tests only.
package enum ReferenceDot {
    package static func dot(_ type: GGMLType, _ w: UnsafeRawPointer, activations: UnsafeRawPointer, count: Int) -> Double {
        guard let actType = ActivationQuantizer.format(for: type) else { preconditionFailure("no kernel for \(type)") }
        var wf = [Float](repeating: 0, count: count)
        var af = [Float](repeating: 0, count: count)
        wf.withUnsafeMutableBufferPointer { Dequantize.row(type, w, $0.baseAddress!, count: count) }
        af.withUnsafeMutableBufferPointer { Dequantize.row(actType, activations, $0.baseAddress!, count: count) }
        var s = 0.0
        for i in 0..<count { s += Double(wf[i]) * Double(af[i]) }
        return s
    }
}
