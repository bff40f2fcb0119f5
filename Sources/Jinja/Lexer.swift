/// Splits template source into tokens the way jinja2 3.1's lexer does, including its whitespace
/// control. Reference: pallets/jinja `src/jinja2/lexer.py` (3.1.6), rules reimplemented by hand:
///
/// - newlines `\r\n`, `\r` become `\n`; one trailing newline of the source is dropped
///   (`keep_trailing_newline=False`);
/// - `{%-`, `{{-`, `{#-` strip all whitespace (Python `str.rstrip`) before the tag; `-%}`, `-}}`,
///   `-#}` strip all whitespace after it;
/// - `trim_blocks`: the first newline right after `%}` or `#}` is removed (`+%}` keeps it);
/// - `lstrip_blocks`: spaces and tabs between the start of a line and `{%` / `{#` are removed
///   (`{%+` keeps them); "start of a line" means after a newline in the preceding text, or
///   after a tag whose match ended in a newline, or at the start of the template;
/// - inside tags, `%}` / `}}` only close the tag when brackets are balanced.
struct Lexer {
    let source: [Unicode.Scalar]
    let trimBlocks: Bool
    let lstripBlocks: Bool
    var pos = 0
    var tokens: [Token] = []
    /// Whether the last consumed match ended in a newline (jinja2's `line_starting`).
    var lineStarting = true
    private var lineStarts: [Int] = [0]

    init(source: String, trimBlocks: Bool, lstripBlocks: Bool) {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(source.unicodeScalars.count)
        var previousCR = false
        for s in source.unicodeScalars {
            if s == "\r" { scalars.append("\n"); previousCR = true; continue }
            if s == "\n" && previousCR { previousCR = false; continue }
            previousCR = false
            scalars.append(s)
        }
        if scalars.last == "\n" { scalars.removeLast() }
        self.source = scalars
        self.trimBlocks = trimBlocks
        self.lstripBlocks = lstripBlocks
        for (i, s) in scalars.enumerated() where s == "\n" { lineStarts.append(i + 1) }
    }

    /// The line and column of scalar offset `offset`.
    func location(_ offset: Int) -> JinjaLocation {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return JinjaLocation(line: lo + 1, column: offset - lineStarts[lo] + 1)
    }

    func starts(with literal: String, at offset: Int) -> Bool {
        var i = offset
        for s in literal.unicodeScalars {
            guard i < source.count, source[i] == s else { return false }
            i += 1
        }
        return true
    }

    func text(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: source[range])
        return String(view)
    }

    /// Tokenizes the whole template.
    static func tokenize(_ source: String, trimBlocks: Bool, lstripBlocks: Bool) throws(JinjaError) -> [Token] {
        var lexer = Lexer(source: source, trimBlocks: trimBlocks, lstripBlocks: lstripBlocks)
        try lexer.run()
        return lexer.tokens
    }

    mutating func run() throws(JinjaError) {
        while pos < source.count {
            guard let (tagStart, opener) = nextTag(from: pos) else {
                emitText(pos..<source.count, stripped: nil)
                lineStarting = source.last == "\n"
                pos = source.count
                break
            }
            let signIndex = tagStart + 2
            let sign: Unicode.Scalar? = signIndex < source.count && (source[signIndex] == "-" || source[signIndex] == "+")
                ? source[signIndex] : nil
            let afterOpen = signIndex + (sign == nil ? 0 : 1)
            let rawEnd = opener == "%" ? rawBeginEnd(at: afterOpen) : nil
            emitText(pos..<tagStart, stripped: whitespaceControl(sign: sign, isVariable: opener == "{"))
            let loc = location(tagStart)
            if let rawEnd {
                lineStarting = source[rawEnd - 1] == "\n"
                pos = rawEnd
                try lexRawBody(begin: loc)
                continue
            }
            pos = afterOpen
            lineStarting = false
            switch opener {
            case "#": try lexComment(begin: loc)
            case "%":
                tokens.append(Token(kind: .blockBegin, location: loc))
                try lexTag(isBlock: true)
            default:
                tokens.append(Token(kind: .variableBegin, location: loc))
                try lexTag(isBlock: false)
            }
        }
        tokens.append(Token(kind: .eof, location: location(source.count)))
    }

    /// The earliest `{{`, `{%` or `{#` at or after `from`.
    func nextTag(from start: Int) -> (Int, Unicode.Scalar)? {
        var i = start
        while i + 1 < source.count {
            if source[i] == "{" {
                let next = source[i + 1]
                if next == "{" || next == "%" || next == "#" { return (i, next) }
            }
            i += 1
        }
        return nil
    }

    /// How the text before a tag is trimmed: nil to keep, or a closure's worth of rules
    /// encoded as the kind of strip.
    enum Strip {
        case all  // `-` sign: rstrip every whitespace
        case lineIndent  // lstrip_blocks: drop spaces/tabs after the last newline
    }

    func whitespaceControl(sign: Unicode.Scalar?, isVariable: Bool) -> Strip? {
        if sign == "-" { return .all }
        if sign != "+" && lstripBlocks && !isVariable { return .lineIndent }
        return nil
    }

    /// Emits `range` as a text token after applying `stripped`.
    mutating func emitText(_ range: Range<Int>, stripped: Strip?) {
        var end = range.upperBound
        switch stripped {
        case .all?:
            while end > range.lowerBound, PythonText.isSpace(source[end - 1]) { end -= 1 }
        case .lineIndent?:
            var lineStart = end
            while lineStart > range.lowerBound, source[lineStart - 1] != "\n" { lineStart -= 1 }
            let afterNewline = lineStart > range.lowerBound
            if (afterNewline || lineStarting) && lineStart < end
                && source[lineStart..<end].allSatisfy({ PythonText.isSpace($0) }) {
                end = lineStart
            }
        case nil:
            break
        }
        if range.lowerBound < end {
            tokens.append(Token(kind: .text(text(range.lowerBound..<end)), location: location(range.lowerBound)))
        }
    }

    /// If `{%[-+]` at the current tag is followed by `raw`, the offset after the whole
    /// `{% raw %}` tag (which, unlike other block tags, does not trim a following newline).
    func rawBeginEnd(at offset: Int) -> Int? {
        var i = offset
        while i < source.count, PythonText.isSpace(source[i]) { i += 1 }
        guard starts(with: "raw", at: i) else { return nil }
        i += 3
        while i < source.count, PythonText.isSpace(source[i]) { i += 1 }
        if starts(with: "-%}", at: i) {
            i += 3
            while i < source.count, PythonText.isSpace(source[i]) { i += 1 }
            return i
        }
        return starts(with: "%}", at: i) ? i + 2 : nil
    }

    /// The body of `{% raw %}…{% endraw %}`, emitted as text.
    mutating func lexRawBody(begin: JinjaLocation) throws(JinjaError) {
        var i = pos
        while i < source.count {
            if starts(with: "{%", at: i) {
                var j = i + 2
                var sign: Unicode.Scalar?
                if j < source.count, source[j] == "-" || source[j] == "+" { sign = source[j]; j += 1 }
                while j < source.count, PythonText.isSpace(source[j]) { j += 1 }
                if starts(with: "endraw", at: j) {
                    j += 6
                    while j < source.count, PythonText.isSpace(source[j]) { j += 1 }
                    if let end = blockEnd(at: j) {
                        emitText(pos..<i, stripped: whitespaceControl(sign: sign, isVariable: false))
                        lineStarting = source[end - 1] == "\n"
                        pos = end
                        return
                    }
                }
            }
            i += 1
        }
        throw .syntax(message: "Missing end of raw directive", at: begin)
    }

    /// If a block end (`+%}`, `-%}` + whitespace, `%}` + trim_blocks newline) starts at
    /// `offset`, the offset after it.
    func blockEnd(at offset: Int) -> Int? {
        closingEnd(at: offset, closer: "%}", trims: trimBlocks)
    }

    /// Matches `+<closer>`, `-<closer>\s*` or `<closer>\n?` (the newline only if `trims`).
    func closingEnd(at offset: Int, closer: String, trims: Bool) -> Int? {
        if starts(with: "+" + closer, at: offset) { return offset + 3 }
        if starts(with: "-" + closer, at: offset) {
            var i = offset + 3
            while i < source.count, PythonText.isSpace(source[i]) { i += 1 }
            return i
        }
        if starts(with: closer, at: offset) {
            let i = offset + 2
            return trims && i < source.count && source[i] == "\n" ? i + 1 : i
        }
        return nil
    }

    /// A comment: skipped up to the first comment end.
    mutating func lexComment(begin: JinjaLocation) throws(JinjaError) {
        var i = pos
        while i < source.count {
            if let end = closingEnd(at: i, closer: "#}", trims: trimBlocks) {
                lineStarting = source[end - 1] == "\n"
                pos = end
                return
            }
            i += 1
        }
        throw .syntax(message: "Missing end of comment tag", at: begin)
    }
}
