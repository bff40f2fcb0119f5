/// A set of Unicode scalar values as sorted, disjoint, non-adjacent closed ranges. Surrogate
/// code points (D800–DFFF) are never members: no string holds them.
struct ScalarSet: Sendable, Hashable {
    private(set) var ranges: [ClosedRange<UInt32>]

    static let maxScalar: UInt32 = 0x10FFFF
    static let surrogates: ClosedRange<UInt32> = 0xD800...0xDFFF

    static let empty = ScalarSet(normalized: [])
    static let all = ScalarSet([0...maxScalar])

    /// ECMA-262 `.`: every character but the line terminators.
    static let dot = ScalarSet.all.subtracting(ScalarSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]))
    /// `\d`
    static let digits = ScalarSet([0x30...0x39])
    /// `\w`
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// `\s`: ECMA-262 WhiteSpace and LineTerminator.
    static let space = ScalarSet([0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                  0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF])

    private init(normalized: [ClosedRange<UInt32>]) { ranges = normalized }

    /// Any ranges (overlapping, unordered, spanning surrogates); they are normalised.
    init(_ input: [ClosedRange<UInt32>]) {
        var sorted: [ClosedRange<UInt32>] = []
        for r in input where r.lowerBound <= Self.maxScalar {
            let r = r.lowerBound...min(r.upperBound, Self.maxScalar)
            // Cut the surrogate block out.
            if r.lowerBound < Self.surrogates.lowerBound { sorted.append(r.lowerBound...min(r.upperBound, 0xD7FF)) }
            if r.upperBound > Self.surrogates.upperBound { sorted.append(max(r.lowerBound, 0xE000)...r.upperBound) }
        }
        sorted.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        for r in sorted {
            if let last = merged.last, r.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        ranges = merged
    }

    static func scalar(_ v: UInt32) -> ScalarSet { ScalarSet([v...v]) }

    var isEmpty: Bool { ranges.isEmpty }

    func contains(_ v: UInt32) -> Bool {
        var lo = 0, hi = ranges.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if v < ranges[mid].lowerBound { hi = mid - 1 } else if v > ranges[mid].upperBound { lo = mid + 1 } else { return true }
        }
        return false
    }

    func union(_ other: ScalarSet) -> ScalarSet { ScalarSet(ranges + other.ranges) }

    /// Every scalar not in the set.
    var complement: ScalarSet {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = r.upperBound &+ 1
        }
        if next <= Self.maxScalar { out.append(next...Self.maxScalar) }
        return ScalarSet(out)
    }

    func subtracting(_ other: ScalarSet) -> ScalarSet { intersection(other.complement) }

    func intersection(_ other: ScalarSet) -> ScalarSet {
        var out: [ClosedRange<UInt32>] = []
        var i = 0, j = 0
        while i < ranges.count && j < other.ranges.count {
            let a = ranges[i], b = other.ranges[j]
            let lo = max(a.lowerBound, b.lowerBound), hi = min(a.upperBound, b.upperBound)
            if lo <= hi { out.append(lo...hi) }
            if a.upperBound < b.upperBound { i += 1 } else { j += 1 }
        }
        return ScalarSet(normalized: out)
    }
}
