/// The word splits of the byte-level BPE pre-tokenizers, as hand-written scanners over code points.
///
/// Port of the behaviour of ggml-org/llama.cpp@0c4093cc `src/unicode.cpp` (`unicode_regex_split_custom_gpt2`,
/// `unicode_regex_split_custom_llama3`): greedy, no backtracking, and `(?!\S)` treats the end of
/// the chunk as "not a non-space", which is what makes `"a  b"` split as `a`, ` `, ` b`.
extension PreTokenizer {
    /// Splits `scalars` (one text fragment) and returns the end index of each word, in order.
    package func wordEnds(_ scalars: [UInt32]) -> [Int] {
        var ends: [Int] = []
        ends.reserveCapacity(scalars.count / 3 + 1)
        let classes = scalars.map(ScalarClass.init)
        switch self {
        case .gpt2:
            Self.splitGPT2(scalars, classes, 0..<scalars.count, into: &ends)
        case .digitsThenGPT2:
            // `\p{N}` first: each number code point is a word and the text between is split again.
            var start = 0
            for i in 0..<scalars.count where classes[i].isNumber {
                Self.splitGPT2(scalars, classes, start..<i, into: &ends)
                ends.append(i + 1)
                start = i + 1
            }
            Self.splitGPT2(scalars, classes, start..<scalars.count, into: &ends)
        case .llama3:
            Self.splitLlama3(scalars, classes, maxDigits: 3, into: &ends)
        case .qwen2:
            Self.splitLlama3(scalars, classes, maxDigits: 1, into: &ends)
        case .none:
            if !scalars.isEmpty { ends.append(scalars.count) }
        }
        return ends
    }

    private static let apostrophe: UInt32 = 0x27, space: UInt32 = 0x20
    private static let cr: UInt32 = 0x0D, lf: UInt32 = 0x0A

    /// Length of a contraction (`'s 't 'm 'd 're 've 'll`) starting at `pos`, or 0.
    private static func contraction(_ cps: [UInt32], _ pos: Int, _ end: Int, caseInsensitive: Bool) -> Int {
        guard cps[pos] == apostrophe, pos + 1 < end else { return 0 }
        func lower(_ c: UInt32) -> UInt32 {
            caseInsensitive && c >= 0x41 && c <= 0x5A ? c + 0x20 : c
        }
        let next = lower(cps[pos + 1])
        if next == 0x73 || next == 0x74 || next == 0x6D || next == 0x64 { return 2 }  // s t m d
        guard pos + 2 < end else { return 0 }
        let next2 = lower(cps[pos + 2])
        if (next == 0x72 && next2 == 0x65) || (next == 0x76 && next2 == 0x65) || (next == 0x6C && next2 == 0x6C) {
            return 3  // re ve ll
        }
        return 0
    }

    private static func splitGPT2(_ cps: [UInt32], _ cls: [ScalarClass], _ range: Range<Int>, into ends: inout [Int]) {
        let end = range.upperBound
        func at(_ i: Int) -> ScalarClass { i < end ? cls[i] : [] }
        var pos = range.lowerBound
        while pos < end {
            let cp = cps[pos]
            let n = contraction(cps, pos, end, caseInsensitive: false)
            if n > 0 {
                pos += n
                ends.append(pos)
                continue
            }
            // ` ?X+` alternatives: an optional leading space, then a run of one class.
            var c2 = cp == space ? at(pos + 1) : cls[pos]
            if c2.isLetter || c2.isNumber || c2.isOther {
                let letter = c2.isLetter, number = c2.isNumber
                if cp == space { pos += 1 }
                while letter ? c2.isLetter : (number ? c2.isNumber : c2.isOther) {
                    pos += 1
                    c2 = at(pos)
                }
                ends.append(pos)
                continue
            }
            var spaces = 0
            while at(pos + spaces).isWhitespace { spaces += 1 }
            if spaces > 1 && pos + spaces < end {
                pos += spaces - 1  // `\s+(?!\S)`: leave the last space to lead the next word
            } else if spaces > 0 {
                pos += spaces
            } else {
                pos += 1
            }
            ends.append(pos)
        }
    }

    private static func splitLlama3(_ cps: [UInt32], _ cls: [ScalarClass], maxDigits: Int, into ends: inout [Int]) {
        let end = cps.count
        func at(_ i: Int) -> ScalarClass { i < end ? cls[i] : [] }
        func cpAt(_ i: Int) -> UInt32 { i < end ? cps[i] : UInt32.max }
        var pos = 0
        while pos < end {
            let cp = cps[pos], c = cls[pos]
            let n = contraction(cps, pos, end, caseInsensitive: true)
            if n > 0 {
                pos += n
                ends.append(pos)
                continue
            }
            // `[^\r\n\p{L}\p{N}]?\p{L}+`
            if !(cp == cr || cp == lf || c.isNumber), c.isLetter || at(pos + 1).isLetter {
                pos += 1
                while at(pos).isLetter { pos += 1 }
                ends.append(pos)
                continue
            }
            // `\p{N}{1,maxDigits}`
            if c.isNumber {
                var run = 0
                while at(pos).isNumber {
                    pos += 1
                    run += 1
                    if run == maxDigits {
                        ends.append(pos)
                        run = 0
                    }
                }
                if run > 0 { ends.append(pos) }
                continue
            }
            // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
            var c2 = cp == space ? at(pos + 1) : c
            if c2.isOther {
                if cp == space { pos += 1 }
                while c2.isOther {
                    pos += 1
                    c2 = at(pos)
                }
                while cpAt(pos) == cr || cpAt(pos) == lf { pos += 1 }
                ends.append(pos)
                continue
            }
            var spaces = 0
            var afterLastNewline = 0
            while at(pos + spaces).isWhitespace {
                let w = cps[pos + spaces]
                if w == cr || w == lf { afterLastNewline = pos + spaces + 1 }
                spaces += 1
            }
            if afterLastNewline > 0 {
                pos = afterLastNewline  // `\s*[\r\n]+`
            } else if spaces > 1 && pos + spaces < end {
                pos += spaces - 1
            } else if spaces > 0 {
                pos += spaces
            } else {
                pos += 1
            }
            ends.append(pos)
        }
    }
}
