import Foundation

/// Elementwise binary operators with NumPy-style broadcasting.
extension GraphKernels {
    /// The output shape of broadcasting `a` with `b` (dims aligned on the right).
    static func broadcastShape(_ a: [Int], _ b: [Int], node: String) throws(ModelError) -> [Int] {
        let rank = max(a.count, b.count)
        var shape = [Int](repeating: 1, count: rank)
        for i in 0..<rank {
            let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
            let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
            guard da == db || da == 1 || db == 1 else {
                throw .invalidGraphValue(node: node, detail: "shapes \(a) and \(b) do not broadcast")
            }
            shape[i] = da == 1 ? db : da
        }
        return shape
    }

    /// The iteration of a broadcast: collapsed dims (innermost last) and each operand's strides
    /// (0 along broadcast dims). Adjacent dims that both operands walk the same way are merged,
    /// so a same-shape operation is one loop and a per-channel one is one loop per channel.
    struct BroadcastPlan {
        var dims: [Int] = []
        var strideA: [Int] = []
        var strideB: [Int] = []

        init(shape: [Int], a: [Int], b: [Int]) {
            func strides(_ operand: [Int]) -> [Int] {
                let padded = [Int](repeating: 1, count: shape.count - operand.count) + operand
                let contiguous = contiguousStrides(padded)
                return shape.indices.map { padded[$0] == 1 && shape[$0] != 1 ? 0 : contiguous[$0] }
            }
            let sa = strides(a), sb = strides(b)
            for i in shape.indices where shape[i] != 1 {
                if let last = dims.indices.last, strideA[last] == sa[i] * shape[i], strideB[last] == sb[i] * shape[i] {
                    dims[last] *= shape[i]
                    strideA[last] = sa[i]
                    strideB[last] = sb[i]
                } else {
                    dims.append(shape[i]); strideA.append(sa[i]); strideB.append(sb[i])
                }
            }
            if dims.isEmpty { dims = [1]; strideA = [0]; strideB = [0] }
        }

        /// Calls `body(offsetA, offsetB, offsetOut)` at the start of every innermost run.
        func forEachRun(_ body: (Int, Int, Int) -> Void) {
            let outer = dims.dropLast().reduce(1, *), inner = dims[dims.count - 1]
            var index = [Int](repeating: 0, count: dims.count)
            var offA = 0, offB = 0
            for run in 0..<outer {
                body(offA, offB, run * inner)
                // Odometer over the outer dims.
                var axis = dims.count - 2
                while axis >= 0 {
                    index[axis] += 1
                    offA += strideA[axis]
                    offB += strideB[axis]
                    if index[axis] < dims[axis] { break }
                    offA -= strideA[axis] * dims[axis]
                    offB -= strideB[axis] * dims[axis]
                    index[axis] = 0
                    axis -= 1
                }
            }
        }
    }

    @inline(__always)
    static func broadcast<T: Numeric>(_ a: [T], _ b: [T], plan: BroadcastPlan, count: Int, _ f: (T, T) -> T) -> [T] {
        let inner = plan.dims[plan.dims.count - 1]
        let stepA = plan.strideA[plan.dims.count - 1], stepB = plan.strideB[plan.dims.count - 1]
        return [T](unsafeUninitializedCapacity: count) { out, initialized in
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    let (xa, xb, o) = (pa.baseAddress!, pb.baseAddress!, out.baseAddress!)
                    plan.forEachRun { offA, offB, offOut in
                        let (ra, rb, ro) = (xa + offA, xb + offB, o + offOut)
                        switch (stepA, stepB) {
                        case (1, 1): for i in 0..<inner { (ro + i).initialize(to: f(ra[i], rb[i])) }
                        case (1, _): let y = rb[0]; for i in 0..<inner { (ro + i).initialize(to: f(ra[i], y)) }
                        case (_, 1): let x = ra[0]; for i in 0..<inner { (ro + i).initialize(to: f(x, rb[i])) }
                        default: let v = f(ra[0], rb[0]); for i in 0..<inner { (ro + i).initialize(to: v) }
                        }
                    }
                }
            }
            initialized = count
        }
    }

    static func binary(_ op: GraphOp.BinaryOp, _ a: GraphTensor, _ b: GraphTensor, node: String) throws(ModelError) -> GraphTensor {
        let shape = try broadcastShape(a.shape, b.shape, node: node)
        let count = try checkedCount(shape, node: node)
        let plan = BroadcastPlan(shape: shape, a: a.shape, b: b.shape)
        switch (a.storage, b.storage) {
        case let (.floats(x), .floats(y)):
            let out: [Float]
            switch op {
            case .add: out = broadcast(x, y, plan: plan, count: count) { $0 + $1 }
            case .sub: out = broadcast(x, y, plan: plan, count: count) { $0 - $1 }
            case .mul: out = broadcast(x, y, plan: plan, count: count) { $0 * $1 }
            case .div: out = broadcast(x, y, plan: plan, count: count) { $0 / $1 }
            case .pow: out = broadcast(x, y, plan: plan, count: count) { $1 == 2 ? $0 * $0 : Foundation.pow($0, $1) }
            }
            return GraphTensor(shape: shape, floats: out)
        case let (.integers(x), .integers(y)):
            if op == .div, y.contains(0) { throw .invalidGraphValue(node: node, detail: "integer division by zero") }
            guard op != .pow else { throw .unsupportedAttribute(node: node, attribute: "Pow operand type", value: "integer") }
            let out: [Int64]
            switch op {
            case .add: out = broadcast(x, y, plan: plan, count: count) { $0 &+ $1 }
            case .sub: out = broadcast(x, y, plan: plan, count: count) { $0 &- $1 }
            case .mul: out = broadcast(x, y, plan: plan, count: count) { $0 &* $1 }
            default: out = broadcast(x, y, plan: plan, count: count) { $1 == 0 ? 0 : $0 / $1 }
            }
            return GraphTensor(shape: shape, integers: out, isInt32: a.isInt32 && b.isInt32)
        default:
            throw .invalidGraphValue(node: node, detail: "operands of different types (float and integer)")
        }
    }

    static func cast(_ x: GraphTensor, toInt: Bool, int32: Bool) -> GraphTensor {
        switch (x.storage, toInt) {
        case (.floats, false): return x
        case (.integers(let v), false): return GraphTensor(shape: x.shape, floats: v.map { Float($0) })
        case (.floats(let v), true):
            // Truncation toward zero; values outside the target range saturate instead of trapping.
            let limit: Float = int32 ? 2_147_483_520 : 9.2e18
            return GraphTensor(shape: x.shape, integers: v.map { $0.isNaN ? 0 : Int64(Swift.min(Swift.max($0, -limit), limit)) }, isInt32: int32)
        case (.integers(let v), true):
            return GraphTensor(shape: x.shape, integers: int32 ? v.map { Int64(Int32(truncatingIfNeeded: $0)) } : v, isInt32: int32)
        }
    }
}
