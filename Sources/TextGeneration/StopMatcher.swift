/// Holds back text that could be the start of a stop string, so a stop string is never
/// emitted, even when it arrives split across tokens.
package struct StopMatcher {
    let stops: [String]
    private var pending = ""

    package init(stops: [String]) { self.stops = stops.filter { !$0.isEmpty } }

    /// Feeds newly decoded text. Returns the text safe to emit and whether a stop string ended
    /// generation (in which case nothing from the stop string on is returned).
    package mutating func feed(_ text: String) -> (emit: String, stopped: Bool) {
        guard !stops.isEmpty else { return (text, false) }
        pending += text
        var earliest: String.Index?
        for s in stops {
            if let r = pending.range(of: s), earliest.map({ r.lowerBound < $0 }) ?? true { earliest = r.lowerBound }
        }
        if let cut = earliest {
            let emit = String(pending[..<cut])
            pending = ""
            return (emit, true)
        }
        // Keep the longest suffix that is a proper prefix of some stop string.
        var keep = 0
        for s in stops {
            for n in stride(from: min(s.count - 1, pending.count), to: 0, by: -1) where n > keep {
                if pending.hasSuffix(s.prefix(n)) { keep = n; break }
            }
        }
        let emitEnd = pending.index(pending.endIndex, offsetBy: -keep)
        let emit = String(pending[..<emitEnd])
        pending = String(pending[emitEnd...])
        return (emit, false)
    }

    /// Text still held back when generation ends for another reason.
    package mutating func flush() -> String {
        defer { pending = "" }
        return pending
    }
}
