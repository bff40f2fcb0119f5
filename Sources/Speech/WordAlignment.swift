/// The arithmetic of Whisper word timestamps, after OpenAI whisper's `timing.py`
/// (openai/whisper@v20240930) as CTranslate2's `WhisperReplica::align` and faster-whisper
/// 1.2.1's `find_alignment` run it: normalise each head's cross-attention over the tokens,
/// median-filter it along time, average the heads, then find the monotonic path of least
/// cost through the negated matrix by dynamic time warping.
package enum WordAlignment {
    /// Encoder positions per second (two 10 ms mel frames each).
    package static let positionsPerSecond = 50.0

    /// The (rows, positions) matrix of `weights` (heads, rows, positions): each head and
    /// position standardised over the rows (mean 0, variance 1, as a layer norm without
    /// epsilon), median-filtered along positions, then averaged over the heads.
    package static func matrix(_ weights: [Float], heads: Int, rows: Int, positions: Int, filterWidth: Int = 7) -> [Float] {
        precondition(weights.count == heads * rows * positions && heads > 0)
        var normalised = weights
        var out = [Float](repeating: 0, count: rows * positions)
        var line = [Float](repeating: 0, count: positions)
        for h in 0..<heads {
            let base = h * rows * positions
            for p in 0..<positions {
                var mean: Float = 0
                for r in 0..<rows { mean += weights[base + r * positions + p] }
                mean /= Float(rows)
                var variance: Float = 0
                for r in 0..<rows {
                    let v = weights[base + r * positions + p] - mean
                    variance += v * v
                }
                variance /= Float(rows)
                let inverse: Float = variance > 0 ? 1 / variance.squareRoot() : 0
                for r in 0..<rows { normalised[base + r * positions + p] = (weights[base + r * positions + p] - mean) * inverse }
            }
            for r in 0..<rows {
                for p in 0..<positions { line[p] = normalised[base + r * positions + p] }
                let filtered = medianFilter(line, width: filterWidth)
                for p in 0..<positions { out[r * positions + p] += filtered[p] / Float(heads) }
            }
        }
        return out
    }

    /// A running median of odd `width` with the ends reflected (`x[1]` mirrors `x[-1]`), as
    /// whisper's `median_filter`; a row no longer than half the width is returned as is.
    package static func medianFilter(_ x: [Float], width: Int) -> [Float] {
        let half = width / 2, n = x.count
        guard width > 1, n > half else { return x }
        var out = x
        var window = [Float](repeating: 0, count: width)
        for i in 0..<n {
            for k in 0..<width {
                var j = i + k - half
                if j < 0 { j = -j }
                if j >= n { j = 2 * (n - 1) - j }
                window[k] = x[max(0, min(n - 1, j))]
            }
            window.sort()
            out[i] = window[half]
        }
        return out
    }

    /// Dynamic time warping through `cost` (rows, columns), from (0, 0) to the last cell by
    /// steps down, right or diagonal; ties go right, then down, as whisper's `dtw_cpu`. Returns
    /// the path's row and column indices in order.
    package static func dtw(_ cost: [Float], rows n: Int, columns m: Int) -> (rows: [Int], columns: [Int]) {
        precondition(cost.count == n * m && n > 0 && m > 0)
        let w = m + 1
        var total = [Float](repeating: .infinity, count: (n + 1) * w)
        // 0: diagonal, 1: from above (row − 1), 2: from the left (column − 1).
        var trace = [UInt8](repeating: 2, count: (n + 1) * w)
        total[0] = 0
        for j in 1...m {
            for i in 1...n {
                let c0 = total[(i - 1) * w + j - 1], c1 = total[(i - 1) * w + j], c2 = total[i * w + j - 1]
                let (c, t): (Float, UInt8) = c0 < c1 && c0 < c2 ? (c0, 0) : c1 < c0 && c1 < c2 ? (c1, 1) : (c2, 2)
                total[i * w + j] = cost[(i - 1) * m + j - 1] + c
                trace[i * w + j] = t
            }
        }
        for j in 0...m { trace[j] = 2 }
        for i in 0...n { trace[i * w] = 1 }
        var i = n, j = m
        var pathRows: [Int] = [], pathColumns: [Int] = []
        while i > 0 || j > 0 {
            pathRows.append(i - 1)
            pathColumns.append(j - 1)
            switch trace[i * w + j] {
            case 0: i -= 1; j -= 1
            case 1: i -= 1
            default: j -= 1
            }
        }
        return (pathRows.reversed(), pathColumns.reversed())
    }

    /// The time in seconds at which the path first reaches each row (the "jumps").
    package static func rowStartTimes(rows: [Int], columns: [Int]) -> [Double] {
        var times: [Double] = []
        for k in rows.indices where k == 0 || rows[k] != rows[k - 1] {
            times.append(Double(columns[k]) / positionsPerSecond)
        }
        return times
    }
}
