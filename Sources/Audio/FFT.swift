import Foundation

/// A complex discrete Fourier transform of one fixed length, any length whose factors are small.
///
/// Mixed-radix Stockham autosort, decimation in frequency (Cooley & Tukey 1965; Stockham's
/// ping-pong ordering, so no bit reversal): at each stage of radix P on sub-length n with
/// stride s, for p < n/P and q < s,
/// `y[q + s(Pp + u)] = (Σ_r x[q + s(p + r·n/P)] · ω_P^{ru}) · ω_n^{pu}`, then recurse on n/P
/// with stride sP. Radices 4, 2, 3, 5 and any other prime by the direct P-point sum.
/// Computed in Double: Whisper's 400-point frames need only 6 stages, so precision is free.
package struct FFT: Sendable {
    package let count: Int
    let radices: [Int]
    /// ω_N^k = exp(-2πik/N) for k < N; every stage's twiddle is a power of it.
    let twiddleRe: [Double], twiddleIm: [Double]

    package init(count: Int) {
        precondition(count >= 1, "FFT length must be positive")
        self.count = count
        var radices: [Int] = []
        var n = count
        for p in [4, 2, 3, 5] { while n % p == 0 { radices.append(p); n /= p } }
        var f = 7
        while n > 1 {
            while n % f == 0 { radices.append(f); n /= f }
            f += 2
        }
        self.radices = radices
        twiddleRe = (0..<count).map { cos(-2 * Double.pi * Double($0) / Double(count)) }
        twiddleIm = (0..<count).map { sin(-2 * Double.pi * Double($0) / Double(count)) }
    }

    /// In-place forward transform of `re` + i·`im` (each `count` long). `scratch` holds two
    /// more buffers of the same size so repeated calls allocate nothing.
    package func forward(re: inout [Double], im: inout [Double], scratchRe: inout [Double], scratchIm: inout [Double]) {
        precondition(re.count == count && im.count == count && scratchRe.count == count && scratchIm.count == count)
        var n = count, s = 1
        var inScratch = false
        for p in radices {
            if inScratch {
                stage(radix: p, n: n, s: s, xr: scratchRe, xi: scratchIm, yr: &re, yi: &im)
            } else {
                stage(radix: p, n: n, s: s, xr: re, xi: im, yr: &scratchRe, yi: &scratchIm)
            }
            inScratch.toggle()
            n /= p
            s *= p
        }
        if inScratch {
            swap(&re, &scratchRe)
            swap(&im, &scratchIm)
        }
    }

    private func stage(radix P: Int, n: Int, s: Int, xr: [Double], xi: [Double], yr: inout [Double], yi: inout [Double]) {
        let m = n / P
        let step = count / n  // ω_n^k = ω_N^(k·step)
        let rootStep = count / P  // ω_P^k = ω_N^(k·rootStep)
        var ar = [Double](repeating: 0, count: P), ai = ar
        for p in 0..<m {
            for q in 0..<s {
                for r in 0..<P {
                    ar[r] = xr[q + s * (p + r * m)]
                    ai[r] = xi[q + s * (p + r * m)]
                }
                for u in 0..<P {
                    var sr = 0.0, si = 0.0
                    if P == 2 {
                        (sr, si) = u == 0 ? (ar[0] + ar[1], ai[0] + ai[1]) : (ar[0] - ar[1], ai[0] - ai[1])
                    } else {
                        for r in 0..<P {
                            let k = (r * u % P) * rootStep
                            sr += ar[r] * twiddleRe[k] - ai[r] * twiddleIm[k]
                            si += ar[r] * twiddleIm[k] + ai[r] * twiddleRe[k]
                        }
                    }
                    let k = (p * u * step) % count
                    let (wr, wi) = (twiddleRe[k], twiddleIm[k])
                    let out = q + s * (P * p + u)
                    yr[out] = sr * wr - si * wi
                    yi[out] = sr * wi + si * wr
                }
            }
        }
    }
}
