/// Whisper's repetition detector: UTF-8 length of a text over the length of
/// `zlib.compress(text)` at the default level, computed without zlib by running the same
/// algorithm and counting the output bits.
///
/// zlib 1.2/1.3 at level 6 (`deflate_slow`, window 32 KiB, hash chains of 3-byte prefixes with
/// hash ((b0 << 10) ^ (b1 << 5) ^ b2) & 0x7FFF, lazy matching with good 8 / lazy 16 / nice 128 /
/// chain 128, a 3-byte match more than 4096 back is dropped, and position 0 is never a match
/// because 0 means "no position"), one final block whose type is the cheapest of stored, fixed
/// and dynamic Huffman codes (`_tr_flush_block`), plus the 2-byte header and 4-byte Adler-32.
/// Texts up to 16383 symbols (one zlib block) are exact; longer ones are one block here.
package enum CompressionRatio {
    /// `len(text) / len(zlib.compress(text))`; 0 for the empty text.
    package static func of(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        return Double(bytes.count) / Double(zlibCompressedCount(bytes))
    }

    /// Bytes `zlib.compress(bytes)` (level 6) produces.
    package static func zlibCompressedCount(_ bytes: [UInt8]) -> Int {
        var symbols = DeflateSymbols()
        parse(bytes, into: &symbols)
        return 2 + symbols.blockBytes(storedLength: bytes.count) + 4
    }

    static let minMatch = 3, maxMatch = 258
    static let windowSize = 32_768
    static let maxDistance = windowSize - (maxMatch + minMatch + 1)
    static let goodLength = 8, maxLazy = 16, niceLength = 128, maxChain = 128, tooFar = 4096

    /// zlib's `deflate_slow` over the whole input, tallying literals and (length, distance) pairs.
    static func parse(_ input: [UInt8], into symbols: inout DeflateSymbols) {
        let n = input.count
        // Bytes past the end read as zero, as in zlib's initialised window.
        let w = input + [UInt8](repeating: 0, count: maxMatch + 2)
        var head = [Int](repeating: 0, count: 1 << 15)
        var prev = [Int](repeating: 0, count: windowSize)
        func insert(_ pos: Int) -> Int {
            let h = ((Int(w[pos]) << 10) ^ (Int(w[pos + 1]) << 5) ^ Int(w[pos + 2])) & 0x7FFF
            let previous = head[h]
            prev[pos & (windowSize - 1)] = previous
            head[h] = pos
            return previous
        }
        func longestMatch(_ start: Int, from candidate: Int, previousLength: Int, lookahead: Int) -> (Int, Int?) {
            var chain = previousLength >= goodLength ? maxChain >> 2 : maxChain
            let nice = min(niceLength, lookahead)
            let limit = start > maxDistance ? start - maxDistance : 0
            var best = previousLength
            var bestStart: Int?
            var current = candidate
            repeat {
                if w[current + best] == w[start + best] && w[current + best - 1] == w[start + best - 1]
                    && w[current] == w[start] && w[current + 1] == w[start + 1] {
                    var len = 2
                    while len < maxMatch && w[current + len] == w[start + len] { len += 1 }
                    if len > best {
                        bestStart = current
                        best = len
                        if len >= nice { break }
                    }
                }
                current = prev[current & (windowSize - 1)]
                chain -= 1
            } while current > limit && chain != 0
            return (min(best, lookahead), bestStart)
        }

        var strstart = 0, lookahead = n
        var matchLength = minMatch - 1, matchStart = 0
        var matchAvailable = false
        while lookahead > 0 {
            var hashHead = 0
            if lookahead >= minMatch { hashHead = insert(strstart) }
            let prevLength = matchLength, prevMatch = matchStart
            matchLength = minMatch - 1
            if hashHead != 0 && prevLength < maxLazy && strstart - hashHead <= maxDistance {
                let (len, start) = longestMatch(strstart, from: hashHead, previousLength: prevLength, lookahead: lookahead)
                // longest_match leaves match_start unchanged when nothing beats prev_length.
                matchLength = len
                if let start { matchStart = start }
                if matchLength == minMatch && strstart - matchStart > tooFar { matchLength = minMatch - 1 }
            }
            if prevLength >= minMatch && matchLength <= prevLength {
                let maxInsert = strstart + lookahead - minMatch
                symbols.match(length: prevLength, distance: strstart - 1 - prevMatch)
                lookahead -= prevLength - 1
                for _ in 0..<(prevLength - 2) {
                    strstart += 1
                    if strstart <= maxInsert { _ = insert(strstart) }
                }
                matchAvailable = false
                matchLength = minMatch - 1
                strstart += 1
            } else if matchAvailable {
                symbols.literal(w[strstart - 1])
                strstart += 1
                lookahead -= 1
            } else {
                matchAvailable = true
                strstart += 1
                lookahead -= 1
            }
        }
        if matchAvailable { symbols.literal(w[strstart - 1]) }
    }
}
