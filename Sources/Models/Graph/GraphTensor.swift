/// A value flowing through an `ONNXGraph`: a row-major array with its shape. Image activations
/// are NCHW float32; shape arithmetic (`Shape`, `Slice` indices, `Reshape` targets) is integers.
package struct GraphTensor: Sendable, Equatable {
    /// The element type: ONNX FLOAT, or INT32/INT64 (both held as Int64; `isInt32` remembers
    /// which, so a `Cast` round trip keeps its type).
    package enum Storage: Sendable, Equatable {
        case floats([Float])
        case integers([Int64])
    }

    /// The most elements one value may hold (256 MiB of float32; the largest PP-OCR activation
    /// at the 2000-pixel size limit is about 26 M).
    package static let maxElements = 1 << 26

    package var shape: [Int]
    package var storage: Storage
    package var isInt32 = false

    package init(shape: [Int], floats: [Float]) {
        precondition(shape.reduce(1, *) == floats.count, "shape \(shape) does not hold \(floats.count) values")
        self.shape = shape
        self.storage = .floats(floats)
    }

    package init(shape: [Int], integers: [Int64], isInt32: Bool = false) {
        precondition(shape.reduce(1, *) == integers.count, "shape \(shape) does not hold \(integers.count) values")
        self.shape = shape
        self.storage = .integers(integers)
        self.isInt32 = isInt32
    }

    package var count: Int { shape.reduce(1, *) }

    /// The float values, or nil for an integer tensor.
    package var floats: [Float]? {
        if case .floats(let values) = storage { return values }
        return nil
    }

    /// The integer values, or nil for a float tensor.
    package var integers: [Int64]? {
        if case .integers(let values) = storage { return values }
        return nil
    }
}

/// The element count of `shape`, or an error naming `node` when a dimension is negative or the
/// count passes `GraphTensor.maxElements` (a crafted graph must not overflow or exhaust memory).
func checkedCount(_ shape: [Int], node: String) throws(ModelError) -> Int {
    var count = 1
    for dim in shape {
        let (product, overflow) = count.multipliedReportingOverflow(by: dim)
        guard dim >= 0, !overflow, product <= GraphTensor.maxElements else {
            throw .invalidGraphValue(node: node, detail: "shape \(shape) is negative or larger than \(GraphTensor.maxElements) elements")
        }
        count = product
    }
    return count
}

/// Row-major strides of `shape` (elements, not bytes).
func contiguousStrides(_ shape: [Int]) -> [Int] {
    var strides = [Int](repeating: 1, count: shape.count)
    var step = 1
    for axis in shape.indices.reversed() {
        strides[axis] = step
        step *= shape[axis]
    }
    return strides
}
