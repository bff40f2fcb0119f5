import CKernels
import Foundation
import Kernels
import Testing

/// The speech kernels (packed GEMM, transposed-key attention, erf GELU, log-sum-exp) against
/// plain scalar references, over awkward sizes.
@Suite struct SpeechKernelTests {
    struct Random {
        var state: UInt64
        mutating func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2_000_001 - 1_000_000) / 1_000_000
        }
        mutating func array(_ n: Int) -> [Float] { (0..<n).map { _ in next() } }
    }

    /// max |a - b| / max |b|.
    static func relativeError(_ a: [Float], _ b: [Float]) -> Float {
        let scale = max(b.map { abs($0) }.max() ?? 1, 1e-6)
        return zip(a, b).map { abs($0 - $1) }.max().map { $0 / scale } ?? 0
    }

    @Test(arguments: [(1, 1, 1), (5, 7, 33), (6, 16, 256), (13, 37, 300), (97, 51, 513), (8, 100, 64), (2, 3, 9)])
    func `od_gemm equals the scalar reference for F32 and F16, both layouts, with accumulation`(size: (Int, Int, Int)) {
        let (m, n, k) = size
        var r = Random(state: UInt64(m * 1000 + n * 10 + k))
        let a = r.array(m * k)
        let b32 = r.array(n * k)
        let b16 = b32.map { odk_fp32_to_fp16($0) }
        let initial = r.array(m * n)
        for half in [false, true] {
            for kmajor in [false, true] {
                for accumulate in [false, true] {
                    var fast = initial, slow = initial
                    let ldb = kmajor ? n : k
                    // Transposed storage for the k-major layout: element (j, p) at p * n + j.
                    let b32l = kmajor ? (0..<(k * n)).map { b32[($0 % n) * k + $0 / n] } : b32
                    let b16l = b32l.map { odk_fp32_to_fp16($0) }
                    _ = b16
                    a.withUnsafeBufferPointer { ap in
                        (half ? b16l.withUnsafeBytes { $0.baseAddress! } : b32l.withUnsafeBytes { $0.baseAddress! }).withMemoryRebound(to: UInt8.self, capacity: 1) { bp in
                            let raw = UnsafeRawPointer(bp)
                            fast.withUnsafeMutableBufferPointer { c in
                                od_gemm(Int64(m), Int64(n), Int64(k), ap.baseAddress!, Int64(k), raw, Int64(ldb), half ? 1 : 0, kmajor ? 1 : 0,
                                        c.baseAddress!, Int64(n), accumulate ? 1 : 0, 0, Int64(n))
                            }
                            slow.withUnsafeMutableBufferPointer { c in
                                od_gemm_scalar(Int64(m), Int64(n), Int64(k), ap.baseAddress!, Int64(k), raw, Int64(ldb), half ? 1 : 0, kmajor ? 1 : 0,
                                               c.baseAddress!, Int64(n), accumulate ? 1 : 0, 0, Int64(n))
                            }
                        }
                    }
                    #expect(Self.relativeError(fast, slow) < 1e-5, "m \(m) n \(n) k \(k) half \(half) kmajor \(kmajor) acc \(accumulate)")
                }
            }
        }
    }

    @Test func `a column range leaves the other columns untouched`() {
        var r = Random(state: 7)
        let (m, n, k) = (7, 40, 20)
        let a = r.array(m * k), b = r.array(n * k)
        var c = [Float](repeating: 42, count: m * n)
        a.withUnsafeBufferPointer { ap in
            b.withUnsafeBytes { bp in
                c.withUnsafeMutableBufferPointer { cp in
                    od_gemm(Int64(m), Int64(n), Int64(k), ap.baseAddress!, Int64(k), bp.baseAddress!, Int64(k), 0, 0, cp.baseAddress!, Int64(n), 0, 16, 32)
                }
            }
        }
        for i in 0..<m {
            for j in 0..<n where j < 16 || j >= 32 { #expect(c[i * n + j] == 42) }
            var s: Float = 0
            for p in 0..<k { s += a[i * k + p] * b[20 * k + p] }
            #expect(abs(c[i * n + 20] - s) < 1e-5)
        }
    }

    @Test(arguments: [(1, 1500, 64), (5, 1500, 64), (3, 37, 8), (16, 100, 128)])
    func `attention over transposed keys equals softmax(qK)V`(size: (Int, Int, Int)) {
        let (rows, n, hd) = size
        var r = Random(state: UInt64(rows * n + hd))
        let q = r.array(rows * hd), keys = r.array(n * hd), values = r.array(n * hd)
        let kt = (0..<(hd * n)).map { keys[($0 % n) * hd + $0 / n] }
        var scores = [Float](repeating: 0, count: rows * n), out = [Float](repeating: 0, count: rows * hd)
        let scale = 1 / Float(hd).squareRoot()
        od_attend_transposed(q, Int64(hd), Int64(rows), kt, values, Int64(hd), Int64(n), Int64(hd), scale, &scores, &out, Int64(hd))
        var expected = [Float](repeating: 0, count: rows * hd)
        for i in 0..<rows {
            var s = (0..<n).map { j in Double((0..<hd).reduce(Float(0)) { $0 + q[i * hd + $1] * keys[j * hd + $1] }) * Double(scale) }
            let top = s.max()!
            s = s.map { exp($0 - top) }
            let total = s.reduce(0, +)
            for d in 0..<hd { expected[i * hd + d] = Float((0..<n).reduce(0.0) { $0 + s[$1] / total * Double(values[$1 * hd + d]) }) }
        }
        #expect(Self.relativeError(out, expected) < 1e-5)
    }

    @Test func `erf GELU, log-sum-exp and row softmax match double-precision references`() {
        var r = Random(state: 3)
        let x = r.array(1001).map { $0 * 8 } + [0, -0.0, 10, -10, 30, -30]
        var y = [Float](repeating: 0, count: x.count)
        VectorMath.geluErf(x, out: &y, count: x.count)
        for (v, g) in zip(x, y) {
            let want = 0.5 * Double(v) * (1 + erf(Double(v) / 2.0.squareRoot()))
            #expect(abs(Double(g) - want) <= 2e-6 * max(1, abs(want)), "gelu(\(v))")
        }
        let big = r.array(51_865).map { $0 * 20 }
        let want = { let m = big.max()!; return Double(m) + log(big.reduce(0.0) { $0 + exp(Double($1 - m)) }) }()
        #expect(abs(Double(VectorMath.logSumExp(big, count: big.count)) - want) < 1e-4)
        var rows = r.array(3 * 77).map { $0 * 30 }
        let copy = rows
        od_softmax_rows(&rows, 3, 77, 77, 0.5)
        for i in 0..<3 {
            let row = copy[(i * 77)..<((i + 1) * 77)].map { Double($0) * 0.5 }
            let m = row.max()!, total = row.reduce(0.0) { $0 + exp($1 - m) }
            for j in 0..<77 { #expect(abs(Double(rows[i * 77 + j]) - exp(row[j] - m) / total) < 1e-6) }
        }
    }
}
