/// A string value inside the interpreter that remembers, scalar by scalar, which parts the
/// template wrote and which came from data. Concatenation, slicing, splitting, stripping and
/// replacing keep per-part origins exactly; other transformations keep them when the result has
/// the same length (positions map one to one), and otherwise mark a mixed result `.data`, the
/// safe side, since `.data` text is never parsed for control tokens.
///
/// Equality and hashing look at the text only (scalar by scalar), as Python compares strings.
struct JinjaString: Hashable {
    /// A run of `count` Unicode scalars with one origin.
    struct Run: Equatable {
        var count: Int
        var origin: JinjaOrigin
    }

    /// The text.
    private(set) var text: String
    /// Runs covering `text` in order; adjacent runs differ in origin, none is empty.
    private(set) var runs: [Run]

    /// `text` entirely from `origin`.
    init(_ text: String, origin: JinjaOrigin) {
        self.text = text
        let n = text.unicodeScalars.count
        runs = n == 0 ? [] : [Run(count: n, origin: origin)]
    }

    private init(text: String, runs: [Run]) {
        self.text = text
        self.runs = runs
    }

    /// An empty string.
    static let empty = JinjaString("", origin: .template)

    /// Length in Unicode scalars (Python's `len`).
    var count: Int { runs.reduce(0) { $0 + $1.count } }

    /// The single origin of the whole string, or nil if it mixes origins (or is empty).
    var uniformOrigin: JinjaOrigin? { runs.count == 1 ? runs[0].origin : nil }

    /// The text split into segments by origin.
    var segments: [JinjaSegment] {
        var out: [JinjaSegment] = []
        var index = text.unicodeScalars.startIndex
        for run in runs {
            let end = text.unicodeScalars.index(index, offsetBy: run.count)
            out.append(JinjaSegment(text: String(text.unicodeScalars[index..<end]), origin: run.origin))
            index = end
        }
        return out
    }

    /// Appends `other`, keeping both sides' origins.
    mutating func append(_ other: JinjaString) {
        text += other.text
        for run in other.runs { appendRun(run) }
    }

    private mutating func appendRun(_ run: Run) {
        guard run.count > 0 else { return }
        if let last = runs.last, last.origin == run.origin {
            runs[runs.count - 1].count += run.count
        } else {
            runs.append(run)
        }
    }

    static func + (lhs: JinjaString, rhs: JinjaString) -> JinjaString {
        var out = lhs
        out.append(rhs)
        return out
    }

    /// The origin of each scalar, in order.
    var scalarOrigins: [JinjaOrigin] {
        var out: [JinjaOrigin] = []
        out.reserveCapacity(count)
        for run in runs { out.append(contentsOf: repeatElement(run.origin, count: run.count)) }
        return out
    }

    /// Builds a string from scalars and their origins.
    init(scalars: some Sequence<(Unicode.Scalar, JinjaOrigin)>) {
        var view = String.UnicodeScalarView()
        var runs: [Run] = []
        for (scalar, origin) in scalars {
            view.append(scalar)
            if let last = runs.last, last.origin == origin { runs[runs.count - 1].count += 1 } else {
                runs.append(Run(count: 1, origin: origin))
            }
        }
        self.init(text: String(view), runs: runs)
    }

    /// The scalars in `range` (scalar offsets), with their origins.
    func slice(_ range: Range<Int>) -> JinjaString {
        guard !range.isEmpty else { return .empty }
        let scalars = text.unicodeScalars
        let start = scalars.index(scalars.startIndex, offsetBy: range.lowerBound)
        let end = scalars.index(start, offsetBy: range.count)
        var newRuns: [Run] = []
        var offset = 0
        for run in runs {
            let lo = max(offset, range.lowerBound), hi = min(offset + run.count, range.upperBound)
            if lo < hi {
                if let last = newRuns.last, last.origin == run.origin { newRuns[newRuns.count - 1].count += hi - lo } else {
                    newRuns.append(Run(count: hi - lo, origin: run.origin))
                }
            }
            offset += run.count
            if offset >= range.upperBound { break }
        }
        return JinjaString(text: String(scalars[start..<end]), runs: newRuns)
    }

    /// Applies `transform` to each run separately: right for case mappings, which act scalar
    /// by scalar (a run may change length, e.g. `ß` → `SS`, and keeps its origin).
    func mapRuns(_ transform: (String) -> String) -> JinjaString {
        var out = JinjaString.empty
        for segment in segments { out.append(JinjaString(transform(segment.text), origin: segment.origin)) }
        return out
    }

    /// Applies `transform` to the whole text (for context-dependent mappings like `title`).
    /// Origins map by position when the scalar count is unchanged; otherwise a mixed string
    /// becomes `.data`.
    func transformed(_ transform: (String) -> String) -> JinjaString {
        let result = transform(text)
        if let origin = uniformOrigin { return JinjaString(result, origin: origin) }
        if runs.isEmpty { return JinjaString(result, origin: .template) }
        let scalars = Array(result.unicodeScalars)
        guard scalars.count == count else { return JinjaString(result, origin: .data) }
        return JinjaString(scalars: zip(scalars, scalarOrigins))
    }

    /// Concatenates `parts` with `separator` between them.
    static func joined(_ parts: [JinjaString], separator: JinjaString) -> JinjaString {
        var out = JinjaString.empty
        for (i, part) in parts.enumerated() {
            if i > 0 { out.append(separator) }
            out.append(part)
        }
        return out
    }

    /// Scalar-wise, like Python (Swift's `==` on `String` would equate canonically equivalent
    /// spellings such as precomposed and decomposed `é`).
    static func == (lhs: JinjaString, rhs: JinjaString) -> Bool {
        lhs.text.unicodeScalars.elementsEqual(rhs.text.unicodeScalars)
    }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
