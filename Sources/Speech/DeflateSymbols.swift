/// Symbol counts of one deflate block and its size under each block type, computed as zlib's
/// `trees.c` does (`build_tree`, `gen_bitlen`, `scan_tree`, `build_bl_tree`, `_tr_flush_block`):
/// the Huffman code lengths come from zlib's own heap order, because the cost of sending the
/// code lengths depends on which of several equally good trees is built.
struct DeflateSymbols {
    static let literals = 256, endBlock = 256, lengthCodes = 29, literalCodes = 286, distanceCodes = 30, bitLengthCodes = 19
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
                               2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let bitLengthExtra = [Int](repeating: 0, count: 16) + [2, 3, 7]
    static let bitLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    /// Fixed-code lengths (RFC 1951 §3.2.6).
    static let staticLiteralLength = (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 }

    var literalFreq = [Int](repeating: 0, count: literalCodes)
    var distanceFreq = [Int](repeating: 0, count: distanceCodes)

    init() { literalFreq[Self.endBlock] = 1 }

    mutating func literal(_ byte: UInt8) { literalFreq[Int(byte)] += 1 }

    mutating func match(length: Int, distance: Int) {
        let lc = Self.lengthBase.lastIndex { $0 <= length }!
        literalFreq[Self.literals + 1 + (length == 258 ? 28 : min(lc, 27))] += 1
        distanceFreq[Self.distanceBase.lastIndex { $0 <= distance }!] += 1
    }

    /// Bytes of the one final block (bits rounded up to a byte).
    func blockBytes(storedLength: Int) -> Int {
        var optimal = 0, fixed = 0
        var literal = HuffmanTree(freq: literalFreq + [Int](repeating: 0, count: 2 * Self.literalCodes + 1 - Self.literalCodes),
                                  elems: Self.literalCodes, extra: Self.lengthExtra, extraBase: Self.literals + 1, maxLength: 15)
        var distance = HuffmanTree(freq: distanceFreq + [Int](repeating: 0, count: 2 * Self.distanceCodes + 1),
                                   elems: Self.distanceCodes, extra: Self.distanceExtra, extraBase: 0, maxLength: 15)
        literal.build(optimal: &optimal, fixed: &fixed, staticLength: { Self.staticLiteralLength[$0] })
        distance.build(optimal: &optimal, fixed: &fixed, staticLength: { _ in 5 })
        // build_bl_tree: the code lengths, run-length coded, then their own Huffman code.
        var blFreq = [Int](repeating: 0, count: 2 * Self.bitLengthCodes + 1)
        Self.scan(literal.length, maxCode: literal.maxCode, into: &blFreq)
        Self.scan(distance.length, maxCode: distance.maxCode, into: &blFreq)
        var bl = HuffmanTree(freq: blFreq, elems: Self.bitLengthCodes, extra: Self.bitLengthExtra, extraBase: 0, maxLength: 7)
        var ignored = 0
        bl.build(optimal: &optimal, fixed: &ignored, staticLength: nil)
        var maxIndex = Self.bitLengthCodes - 1
        while maxIndex >= 3 && bl.length[Self.bitLengthOrder[maxIndex]] == 0 { maxIndex -= 1 }
        optimal += 3 * (maxIndex + 1) + 5 + 5 + 4
        var optimalBytes = (optimal + 3 + 7) >> 3
        let fixedBytes = (fixed + 3 + 7) >> 3
        if fixedBytes <= optimalBytes { optimalBytes = fixedBytes }
        if storedLength + 4 <= optimalBytes { return storedLength + 5 }
        return fixedBytes == optimalBytes ? (3 + fixed + 7) / 8 : (3 + optimal + 7) / 8
    }

    /// `scan_tree`: tallies the bit-length codes (with repeat codes 16, 17, 18) of `lengths`.
    static func scan(_ lengths: [Int], maxCode: Int, into freq: inout [Int]) {
        var prevLength = -1
        var nextLength = lengths[0]
        var count = 0
        var (maxCount, minCount) = nextLength == 0 ? (138, 3) : (7, 4)
        guard maxCode >= 0 else { return }
        for n in 0...maxCode {
            let current = nextLength
            nextLength = n + 1 <= maxCode ? lengths[n + 1] : 0xFFFF
            count += 1
            if count < maxCount && current == nextLength { continue }
            if count < minCount {
                freq[current] += count
            } else if current != 0 {
                if current != prevLength { freq[current] += 1 }
                freq[16] += 1
            } else if count <= 10 {
                freq[17] += 1
            } else {
                freq[18] += 1
            }
            count = 0
            prevLength = current
            if nextLength == 0 {
                (maxCount, minCount) = (138, 3)
            } else if current == nextLength {
                (maxCount, minCount) = (6, 3)
            } else {
                (maxCount, minCount) = (7, 4)
            }
        }
    }
}

/// zlib's Huffman tree construction for one alphabet, producing code lengths and adding the
/// block's cost in bits to the running totals.
struct HuffmanTree {
    var freq: [Int]
    let elems: Int
    let extra: [Int]
    let extraBase: Int
    let maxLength: Int
    var length: [Int]
    var dad: [Int]
    var depth: [Int]
    var maxCode = -1

    init(freq: [Int], elems: Int, extra: [Int], extraBase: Int, maxLength: Int) {
        let nodes = 2 * elems + 1
        self.freq = freq + [Int](repeating: 0, count: max(0, nodes - freq.count))
        self.elems = elems
        self.extra = extra
        self.extraBase = extraBase
        self.maxLength = maxLength
        length = [Int](repeating: 0, count: nodes)
        dad = [Int](repeating: 0, count: nodes)
        depth = [Int](repeating: 0, count: nodes)
    }

    private func smaller(_ n: Int, _ m: Int) -> Bool {
        freq[n] < freq[m] || (freq[n] == freq[m] && depth[n] <= depth[m])
    }

    private func downHeap(_ heap: inout [Int], _ heapLength: Int, _ start: Int) {
        var k = start
        let v = heap[k]
        var j = k << 1
        while j <= heapLength {
            if j < heapLength && smaller(heap[j + 1], heap[j]) { j += 1 }
            if smaller(v, heap[j]) { break }
            heap[k] = heap[j]
            k = j
            j <<= 1
        }
        heap[k] = v
    }

    mutating func build(optimal: inout Int, fixed: inout Int, staticLength: ((Int) -> Int)?) {
        let heapSize = 2 * DeflateSymbols.literalCodes + 1
        var heap = [Int](repeating: 0, count: heapSize + 1)
        var heapLength = 0, heapMax = heapSize
        for n in 0..<elems {
            if freq[n] != 0 {
                heapLength += 1
                heap[heapLength] = n
                maxCode = n
                depth[n] = 0
            } else {
                length[n] = 0
            }
        }
        // At least two codes, so every used symbol gets a code of one bit or more.
        while heapLength < 2 {
            let node: Int
            if maxCode < 2 { maxCode += 1; node = maxCode } else { node = 0 }
            heapLength += 1
            heap[heapLength] = node
            freq[node] = 1
            depth[node] = 0
            optimal -= 1
            if let staticLength { fixed -= staticLength(node) }
        }
        for n in stride(from: heapLength / 2, through: 1, by: -1) { downHeap(&heap, heapLength, n) }
        var node = elems
        repeat {
            let n = heap[1]
            heap[1] = heap[heapLength]
            heapLength -= 1
            downHeap(&heap, heapLength, 1)
            let m = heap[1]
            heapMax -= 1; heap[heapMax] = n
            heapMax -= 1; heap[heapMax] = m
            freq[node] = freq[n] + freq[m]
            depth[node] = max(depth[n], depth[m]) + 1
            dad[n] = node
            dad[m] = node
            heap[1] = node
            node += 1
            downHeap(&heap, heapLength, 1)
        } while heapLength >= 2
        heapMax -= 1
        heap[heapMax] = heap[1]
        generateLengths(heap: heap, heapMax: heapMax, heapSize: heapSize, optimal: &optimal, fixed: &fixed, staticLength: staticLength)
    }

    /// `gen_bitlen`: depths from the root, capped at `maxLength` with zlib's rebalancing.
    private mutating func generateLengths(heap: [Int], heapMax: Int, heapSize: Int, optimal: inout Int, fixed: inout Int,
                                          staticLength: ((Int) -> Int)?) {
        var count = [Int](repeating: 0, count: 16)
        length[heap[heapMax]] = 0
        var overflow = 0
        var h = heapMax + 1
        while h < heapSize {
            let n = heap[h]
            var bits = length[dad[n]] + 1
            if bits > maxLength { bits = maxLength; overflow += 1 }
            length[n] = bits
            h += 1
            if n > maxCode { continue }
            count[bits] += 1
            let xbits = n >= extraBase ? extra[n - extraBase] : 0
            optimal += freq[n] * (bits + xbits)
            if let staticLength { fixed += freq[n] * (staticLength(n) + xbits) }
        }
        guard overflow > 0 else { return }
        repeat {
            var bits = maxLength - 1
            while count[bits] == 0 { bits -= 1 }
            count[bits] -= 1
            count[bits + 1] += 2
            count[maxLength] -= 1
            overflow -= 2
        } while overflow > 0
        h = heapSize
        for bits in stride(from: maxLength, to: 0, by: -1) {
            var n = count[bits]
            while n != 0 {
                h -= 1
                let m = heap[h]
                if m > maxCode { continue }
                if length[m] != bits {
                    optimal += (bits - length[m]) * freq[m]
                    length[m] = bits
                }
                n -= 1
            }
        }
    }
}
