import Foundation

/// The inverse of a monotonic rational-quadratic spline with linear tails (Durkan et al. 2019,
/// "Neural Spline Flows"), as VITS's stochastic duration predictor uses it: `bins` bins on
/// [−tailBound, tailBound], identity outside, bin widths and heights from softmaxes with a floor
/// of 1e-3, knot derivatives 1e-3 + softplus (the two end knots fixed at derivative 1).
enum VITSSpline {
    static let minimumBin: Float = 1e-3
    static let minimumDerivative: Float = 1e-3

    /// Inverts the spline at `y`. `widths`/`heights`: `bins` unnormalized values each;
    /// `derivatives`: the `bins − 1` interior knots' unnormalized derivatives.
    static func inverse(_ y: Float, widths: ArraySlice<Float>, heights: ArraySlice<Float>, derivatives: ArraySlice<Float>,
                        tailBound: Float) -> Float {
        guard y >= -tailBound && y <= tailBound else { return y }
        let bins = widths.count
        let cumulativeWidths = knots(widths, bound: tailBound)
        let cumulativeHeights = knots(heights, bound: tailBound)
        // The end knots' unnormalized value log(e^(1 − min) − 1) makes their derivative exactly 1.
        let end = log(exp(1 - minimumDerivative) - 1)
        var slopes = [Float](repeating: 0, count: bins + 1)
        for k in 0...bins {
            let raw = k == 0 || k == bins ? end : derivatives[derivatives.startIndex + k - 1]
            slopes[k] = minimumDerivative + softplus(raw)
        }
        // The bin whose height interval holds y; the last knot is nudged up by 1e-6 as the reference does.
        var bin = -1
        for k in 0...bins where y >= (k == bins ? cumulativeHeights[k] + 1e-6 : cumulativeHeights[k]) { bin += 1 }
        bin = min(max(bin, 0), bins - 1)
        let x0 = cumulativeWidths[bin], width = cumulativeWidths[bin + 1] - cumulativeWidths[bin]
        let y0 = cumulativeHeights[bin], height = cumulativeHeights[bin + 1] - cumulativeHeights[bin]
        let delta = height / width
        let d0 = slopes[bin], d1 = slopes[bin + 1]
        let dy = y - y0
        let a = dy * (d0 + d1 - 2 * delta) + height * (delta - d0)
        let b = height * d0 - dy * (d0 + d1 - 2 * delta)
        let c = -delta * dy
        let discriminant = b * b - 4 * a * c
        let root = (2 * c) / (-b - discriminant.squareRoot())
        return root * width + x0
    }

    /// Knot positions on [−bound, bound] from unnormalized bin sizes: softmax, floor, cumulative sum.
    private static func knots(_ raw: ArraySlice<Float>, bound: Float) -> [Float] {
        let bins = raw.count
        let top = raw.max() ?? 0
        var sizes = raw.map { exp($0 - top) }
        let total = sizes.reduce(0, +)
        for k in sizes.indices { sizes[k] = minimumBin + (1 - minimumBin * Float(bins)) * (sizes[k] / total) }
        var knots = [Float](repeating: 0, count: bins + 1)
        var sum: Float = 0
        for k in 0..<bins {
            sum += sizes[k]
            knots[k + 1] = 2 * bound * sum - bound
        }
        knots[0] = -bound
        knots[bins] = bound
        return knots
    }

    static func softplus(_ x: Float) -> Float { x > 20 ? x : log1p(exp(x)) }
}
