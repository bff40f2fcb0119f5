import CKernels
import Foundation
import Testing

/// `od_gated_tanh` and `od_tanh` (AVX2 when the CPU has it) against their libm twins, over a
/// range that includes the saturated tails and a length that leaves a partial vector.
@Suite struct GatedTanhTests {
    static let count = 1003

    static func inputs(seed: UInt64) -> [Float] {
        var random = TestRandom(seed: seed)
        var x = (0..<count).map { _ in random.float(-12, 12) }
        x[0] = 200; x[1] = -200; x[2] = 0; x[3] = 1e-4
        return x
    }

    @Test func `the gated tanh matches the scalar reference`() {
        let a = Self.inputs(seed: 3), b = Self.inputs(seed: 5)
        var fast = [Float](repeating: 0, count: Self.count), slow = fast
        od_gated_tanh(a, b, &fast, Int64(Self.count))
        od_gated_tanh_scalar(a, b, &slow, Int64(Self.count))
        for i in 0..<Self.count { #expect(abs(fast[i] - slow[i]) < 1e-6, "a \(a[i]) b \(b[i])") }
        #expect(abs(slow[5] - tanh(a[5]) / (1 + exp(-b[5]))) < 1e-6)
    }

    @Test func `tanh matches the scalar reference in place`() {
        let x = Self.inputs(seed: 9)
        var fast = x, slow = [Float](repeating: 0, count: Self.count)
        fast.withUnsafeMutableBufferPointer { od_tanh($0.baseAddress!, $0.baseAddress!, Int64(Self.count)) }
        od_tanh_scalar(x, &slow, Int64(Self.count))
        for i in 0..<Self.count { #expect(abs(fast[i] - slow[i]) < 1e-6, "x \(x[i])") }
        #expect(slow[0] == 1 && slow[1] == -1 && slow[2] == 0)
    }
}
