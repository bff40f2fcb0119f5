/// Python `str` algorithms on origin-carrying strings, working in Unicode scalars (Python's
/// string unit). Everything here is a slice or a splice of its inputs, so origins are exact.
extension JinjaString {
    var scalars: [Unicode.Scalar] { Array(text.unicodeScalars) }

    /// `str.strip`/`lstrip`/`rstrip`: Python whitespace, or any scalar of `chars`.
    func stripped(_ chars: String?, leading: Bool = true, trailing: Bool = true) -> JinjaString {
        let s = scalars
        let set = chars.map { Set($0.unicodeScalars) }
        func strip(_ c: Unicode.Scalar) -> Bool { set.map { $0.contains(c) } ?? PythonText.isSpace(c) }
        var lo = 0, hi = s.count
        if leading { while lo < hi, strip(s[lo]) { lo += 1 } }
        if trailing { while hi > lo, strip(s[hi - 1]) { hi -= 1 } }
        return slice(lo..<hi)
    }

    /// Scalar offsets of the non-overlapping occurrences of `needle` (non-empty) from the left.
    func occurrences(of needle: [Unicode.Scalar], in s: [Unicode.Scalar], limit: Int = .max) -> [Int] {
        guard !needle.isEmpty, needle.count <= s.count else { return [] }
        var out: [Int] = []
        var i = 0
        while i + needle.count <= s.count, out.count < limit {
            if s[i] == needle[0], s[i..<i + needle.count].elementsEqual(needle) {
                out.append(i)
                i += needle.count
            } else {
                i += 1
            }
        }
        return out
    }

    /// `str.split(sep, maxsplit)`; `sep == nil` splits on whitespace runs and drops empties.
    func split(_ separator: String?, maxSplit: Int = -1, fromRight: Bool = false) -> [JinjaString] {
        let s = scalars
        let limit = maxSplit < 0 ? Int.max : maxSplit
        guard let separator else {
            var ranges: [Range<Int>] = []
            if fromRight {
                var hi = s.count
                while true {
                    while hi > 0, PythonText.isSpace(s[hi - 1]) { hi -= 1 }
                    if hi == 0 { break }
                    if ranges.count == limit { ranges.append(0..<hi); break }
                    var lo = hi
                    while lo > 0, !PythonText.isSpace(s[lo - 1]) { lo -= 1 }
                    ranges.append(lo..<hi)
                    hi = lo
                }
                return ranges.reversed().map { slice($0) }
            }
            var lo = 0
            while true {
                while lo < s.count, PythonText.isSpace(s[lo]) { lo += 1 }
                if lo == s.count { break }
                if ranges.count == limit { ranges.append(lo..<s.count); break }
                var hi = lo
                while hi < s.count, !PythonText.isSpace(s[hi]) { hi += 1 }
                ranges.append(lo..<hi)
                lo = hi
            }
            return ranges.map { slice($0) }
        }
        let needle = Array(separator.unicodeScalars)
        var cuts: [Int]
        if fromRight {
            let reversedHits = occurrences(of: needle.reversed(), in: s.reversed(), limit: limit)
            cuts = reversedHits.map { s.count - $0 - needle.count }.reversed()
        } else {
            cuts = occurrences(of: needle, in: s, limit: limit)
        }
        var parts: [JinjaString] = []
        var lo = 0
        for cut in cuts {
            parts.append(slice(lo..<cut))
            lo = cut + needle.count
        }
        parts.append(slice(lo..<s.count))
        return parts
    }

    /// `str.splitlines(keepends)`: breaks at `\n`, `\r\n`, `\r`, `\v`, `\f`, `\x1c`–`\x1e`,
    /// `\x85`, `\u2028`, `\u2029`.
    func splitLines(keepEnds: Bool = false) -> [JinjaString] {
        let s = scalars
        var parts: [JinjaString] = []
        var lo = 0, i = 0
        while i < s.count {
            let c = s[i].value
            guard [0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029].contains(c) else { i += 1; continue }
            var end = i + 1
            if c == 0x0D, end < s.count, s[end] == "\n" { end += 1 }
            parts.append(slice(lo..<(keepEnds ? end : i)))
            lo = end
            i = end
        }
        if lo < s.count { parts.append(slice(lo..<s.count)) }
        return parts
    }

    /// `str.replace(old, new, count)`: the kept text keeps its origins, inserted text has the
    /// replacement's.
    func replacing(_ old: JinjaString, with new: JinjaString, count: Int = -1) -> JinjaString {
        let s = scalars
        let limit = count < 0 ? Int.max : count
        if old.text.isEmpty {
            // Python inserts `new` before every scalar and at the end.
            var out = JinjaString.empty
            var inserted = 0
            for i in 0...s.count {
                if inserted < limit { out.append(new); inserted += 1 }
                if i < s.count { out.append(slice(i..<i + 1)) }
            }
            return out
        }
        let needle = old.scalars
        let hits = occurrences(of: needle, in: s, limit: limit)
        guard !hits.isEmpty else { return self }
        var out = JinjaString.empty
        var lo = 0
        for hit in hits {
            out.append(slice(lo..<hit))
            out.append(new)
            lo = hit + needle.count
        }
        out.append(slice(lo..<s.count))
        return out
    }

    /// `str.find` (`fromRight`: `rfind`) within `start..<end` (Python slice bounds); -1 if absent.
    func find(_ needle: String, start: Int? = nil, end: Int? = nil, fromRight: Bool = false) -> Int {
        let s = scalars, n = Array(needle.unicodeScalars)
        func clamp(_ i: Int?, _ d: Int) -> Int {
            guard var i else { return d }
            if i < 0 { i += s.count }
            return min(max(i, 0), s.count)
        }
        let lo = clamp(start, 0), hi = clamp(end, s.count)
        guard hi - lo >= n.count else { return -1 }
        let positions = Array(lo...(hi - n.count))
        for i in fromRight ? positions.reversed() : positions where s[i..<i + n.count].elementsEqual(n) { return i }
        return -1
    }

    /// `str.count(sub)`.
    func occurrenceCount(_ needle: String) -> Int {
        needle.isEmpty ? count + 1 : occurrences(of: Array(needle.unicodeScalars), in: scalars).count
    }

    /// Python's `str.title()`: a scalar is title-cased after an uncased one, lowercased after
    /// a cased one.
    static func pythonTitle(_ text: String) -> String {
        var out = ""
        var previousCased = false
        for s in text.unicodeScalars {
            out += previousCased ? s.properties.lowercaseMapping : s.properties.titlecaseMapping
            previousCased = s.properties.isCased
        }
        return out
    }

    /// Python's `str.capitalize()`: the first scalar title-cased, the rest lowercased.
    static func pythonCapitalize(_ text: String) -> String {
        var out = ""
        for (i, s) in text.unicodeScalars.enumerated() {
            out += i == 0 ? s.properties.titlecaseMapping : s.properties.lowercaseMapping
        }
        return out
    }
}
