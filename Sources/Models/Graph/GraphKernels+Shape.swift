import CKernels
import Foundation

/// Shape operators (the arithmetic exporters emit around reshapes), reductions, softmax and MatMul.
extension GraphKernels {
    /// `axis` in [-rank, rank) made non-negative, or an error naming the node.
    static func axis(_ axis: Int, rank: Int, node: String) throws(ModelError) -> Int {
        let resolved = axis < 0 ? axis + rank : axis
        guard resolved >= 0, resolved < Swift.max(rank, 1) else {
            throw .invalidGraphValue(node: node, detail: "axis \(axis) outside rank \(rank)")
        }
        return resolved
    }

    /// The same values under another element order: out[i] = x[source(i)], walking `shape` with
    /// `strides` into the source (an odometer, so nothing per element is allocated).
    static func gather<T>(_ x: [T], shape: [Int], strides: [Int], offset: Int) -> [T] {
        let count = shape.reduce(1, *)
        guard count > 0 else { return [] }
        var out: [T] = []
        out.reserveCapacity(count)
        var index = [Int](repeating: 0, count: shape.count), position = offset
        for _ in 0..<count {
            out.append(x[position])
            var axis = shape.count - 1
            while axis >= 0 {
                index[axis] += 1
                position += strides[axis]
                if index[axis] < shape[axis] { break }
                position -= strides[axis] * shape[axis]
                index[axis] = 0
                axis -= 1
            }
        }
        return out
    }

    static func regather(_ x: GraphTensor, shape: [Int], strides: [Int], offset: Int = 0) -> GraphTensor {
        switch x.storage {
        case .floats(let v): return GraphTensor(shape: shape, floats: gather(v, shape: shape, strides: strides, offset: offset))
        case .integers(let v): return GraphTensor(shape: shape, integers: gather(v, shape: shape, strides: strides, offset: offset), isInt32: x.isInt32)
        }
    }

    static func transpose(_ x: GraphTensor, perm: [Int]?, node: String) throws(ModelError) -> GraphTensor {
        let rank = x.shape.count
        let perm = perm ?? Array((0..<rank).reversed())
        guard perm.count == rank, Set(perm) == Set(0..<rank) else {
            throw .invalidGraphValue(node: node, detail: "perm \(perm) for rank \(rank)")
        }
        let strides = contiguousStrides(x.shape)
        return regather(x, shape: perm.map { x.shape[$0] }, strides: perm.map { strides[$0] })
    }

    static func slice(_ arguments: [GraphTensor?], node: String) throws(ModelError) -> GraphTensor {
        guard let x = arguments[0], let starts = arguments[1]?.integers, let ends = arguments[2]?.integers else {
            throw .invalidGraphValue(node: node, detail: "data, integer starts and ends needed")
        }
        let rank = x.shape.count
        let axes = arguments.count > 3 ? arguments[3]?.integers ?? Array(0..<Int64(starts.count)) : Array(0..<Int64(starts.count))
        let steps = arguments.count > 4 ? arguments[4]?.integers ?? [Int64](repeating: 1, count: starts.count) : [Int64](repeating: 1, count: starts.count)
        guard ends.count == starts.count, axes.count == starts.count, steps.count == starts.count else {
            throw .invalidGraphValue(node: node, detail: "starts, ends, axes and steps of different lengths")
        }
        var shape = x.shape, offset = 0
        let base = contiguousStrides(x.shape)
        var strides = base
        for k in starts.indices {
            let a = try axis(Int(clamping: axes[k]), rank: rank, node: node), dim = x.shape[a]
            let step = Int(clamping: steps[k])
            guard step != 0, (-Int64(Int32.max)...Int64(Int32.max)).contains(steps[k]) else { throw .invalidGraphValue(node: node, detail: "slice step \(steps[k])") }
            func resolve(_ v: Int64, low: Int, high: Int) -> Int {
                let value = v < 0 ? Int(clamping: v) + dim : Int(clamping: v)
                return Swift.min(Swift.max(value, low), high)
            }
            let start = step > 0 ? resolve(starts[k], low: 0, high: dim) : resolve(starts[k], low: -1, high: dim - 1)
            let end = step > 0 ? resolve(ends[k], low: 0, high: dim) : resolve(ends[k], low: -1, high: dim - 1)
            let length = step > 0 ? Swift.max(0, (end - start + step - 1) / step) : Swift.max(0, (start - end - step - 1) / -step)
            shape[a] = length
            strides[a] = base[a] * step
            if length > 0 { offset += start * base[a] }
        }
        return regather(x, shape: shape, strides: strides, offset: offset)
    }

    static func concat(_ inputs: [GraphTensor], axis rawAxis: Int, node: String) throws(ModelError) -> GraphTensor {
        guard let first = inputs.first else { throw .invalidGraphValue(node: node, detail: "no inputs") }
        let rank = first.shape.count, a = try axis(rawAxis, rank: rank, node: node)
        var shape = first.shape
        shape[a] = 0
        for input in inputs {
            guard input.shape.count == rank, input.shape.indices.allSatisfy({ $0 == a || input.shape[$0] == first.shape[$0] }),
                  (input.floats == nil) == (first.floats == nil) else {
                throw .invalidGraphValue(node: node, detail: "cannot concatenate \(input.shape) with \(first.shape) on axis \(a)")
            }
            shape[a] += input.shape[a]
        }
        let outer = first.shape[..<a].reduce(1, *)
        func join<T>(_ parts: [[T]]) -> [T] {
            var out: [T] = []
            out.reserveCapacity(shape.reduce(1, *))
            let blocks = zip(parts, inputs).map { $1.shape[a...].reduce(1, *) }
            for o in 0..<outer { for (part, block) in zip(parts, blocks) { out.append(contentsOf: part[(o * block)..<((o + 1) * block)]) } }
            return out
        }
        if first.floats != nil { return GraphTensor(shape: shape, floats: join(inputs.map { $0.floats! })) }
        return GraphTensor(shape: shape, integers: join(inputs.map { $0.integers! }), isInt32: first.isInt32)
    }

    static func reshape(_ x: GraphTensor, to target: GraphTensor, node: String) throws(ModelError) -> GraphTensor {
        guard let dims = target.integers else { throw .invalidGraphValue(node: node, detail: "shape input must be integers") }
        var shape = dims.enumerated().map { i, d in d == 0 && i < x.shape.count ? x.shape[i] : Int(clamping: d) }
        if let inferred = shape.firstIndex(of: -1) {
            let known = try checkedCount(shape.enumerated().filter { $0.offset != inferred }.map(\.element), node: node)
            guard known > 0, x.count % known == 0 else { throw .invalidGraphValue(node: node, detail: "cannot reshape \(x.shape) to \(dims)") }
            shape[inferred] = x.count / known
        }
        guard try checkedCount(shape, node: node) == x.count else {
            throw .invalidGraphValue(node: node, detail: "cannot reshape \(x.shape) to \(dims)")
        }
        var out = x
        out.shape = shape
        return out
    }

    static func squeeze(_ x: GraphTensor, axes: [Int]?, node: String) throws(ModelError) -> GraphTensor {
        var out = x
        if let axes {
            var drop = Set<Int>()
            for a in axes {
                let resolved = try axis(a, rank: x.shape.count, node: node)
                guard x.shape[resolved] == 1 else { throw .invalidGraphValue(node: node, detail: "axis \(a) of \(x.shape) is not 1") }
                drop.insert(resolved)
            }
            out.shape = x.shape.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
        } else {
            out.shape = x.shape.filter { $0 != 1 }
        }
        return out
    }

    static func reduceMean(_ x: GraphTensor, axes: [Int]?, keepDims: Bool, node: String) throws(ModelError) -> GraphTensor {
        guard let values = x.floats else { throw .invalidGraphValue(node: node, detail: "ReduceMean needs floats") }
        let rank = x.shape.count
        var reduced = Set<Int>()
        for a in axes ?? Array(0..<rank) { reduced.insert(try axis(a, rank: rank, node: node)) }
        // Only trailing axes are reduced here (what LayerNorm decompositions emit); others are refused.
        guard let lowest = reduced.min(), reduced == Set(lowest..<rank) else {
            throw .unsupportedAttribute(node: node, attribute: "axes", value: "\(axes ?? []) (only trailing axes)")
        }
        let inner = x.shape[lowest...].reduce(1, *), outer = x.shape[..<lowest].reduce(1, *)
        var out = [Float](repeating: 0, count: outer)
        for o in 0..<outer {
            var sum: Float = 0
            for i in 0..<inner { sum += values[o * inner + i] }
            out[o] = sum / Float(Swift.max(inner, 1))
        }
        let shape = keepDims ? x.shape.enumerated().map { reduced.contains($0.offset) ? 1 : $0.element } : Array(x.shape[..<lowest])
        return GraphTensor(shape: shape, floats: out)
    }

    static func softmax(_ x: GraphTensor, axis rawAxis: Int, node: String) throws(ModelError) -> GraphTensor {
        guard var values = x.floats else { throw .invalidGraphValue(node: node, detail: "Softmax needs floats") }
        let a = try axis(rawAxis, rank: x.shape.count, node: node)
        let n = x.shape[a...].reduce(1, *), rows = x.shape[..<a].reduce(1, *)
        guard n > 0 else { return x }
        values.withUnsafeMutableBufferPointer { buf in
            for r in 0..<rows {
                let row = buf.baseAddress! + r * n
                var peak = -Float.infinity
                for j in 0..<n { peak = Swift.max(peak, row[j]) }
                var sum: Float = 0
                for j in 0..<n { row[j] = exp(row[j] - peak); sum += row[j] }
                for j in 0..<n { row[j] /= sum }
            }
        }
        return GraphTensor(shape: x.shape, floats: values)
    }

    /// NumPy matmul: (..., m, k) x (..., k, n); B either 2-D (shared) or with the same batch dims as A.
    static func matMul(_ a: GraphTensor, _ b: GraphTensor, node: String, threads: Int) throws(ModelError) -> GraphTensor {
        guard let x = a.floats, let y = b.floats, a.shape.count >= 2, b.shape.count >= 2 else {
            throw .invalidGraphValue(node: node, detail: "MatMul needs float operands of rank >= 2, got \(a.shape) and \(b.shape)")
        }
        let m = a.shape[a.shape.count - 2], k = a.shape[a.shape.count - 1], n = b.shape[b.shape.count - 1]
        guard b.shape[b.shape.count - 2] == k else { throw .invalidGraphValue(node: node, detail: "MatMul \(a.shape) x \(b.shape)") }
        let batchA = Array(a.shape.dropLast(2)), batchB = Array(b.shape.dropLast(2))
        let shared = b.shape.count == 2
        guard shared || batchA == batchB else {
            throw .unsupportedAttribute(node: node, attribute: "MatMul batch broadcast", value: "\(a.shape) x \(b.shape)")
        }
        let batches = batchA.reduce(1, *)
        // A shared B: all batches of A are one (batches·m × k) matrix.
        let (rows, runs) = shared ? (batches * m, 1) : (m, batches)
        var out = [Float](repeating: 0, count: batches * m * n)
        x.withUnsafeBufferPointer { pa in
            y.withUnsafeBufferPointer { pb in
                out.withUnsafeMutableBufferPointer { po in
                    for r in 0..<runs {
                        nonisolated(unsafe) let (ap, bp, op) = (pa.baseAddress! + r * m * k, pb.baseAddress! + r * k * n, po.baseAddress! + r * m * n)
                        splitColumns(n, threads: threads, work: rows * n * k) { begin, end in
                            od_gemm(Int64(rows), Int64(n), Int64(k), ap, Int64(k), bp, Int64(n), 0, 1, op, Int64(n), 0, Int64(begin), Int64(end))
                        }
                    }
                }
            }
        }
        return GraphTensor(shape: batchA + [m, n], floats: out)
    }
}
