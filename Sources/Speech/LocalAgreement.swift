import Foundation

/// A word of a streaming hypothesis, timed relative to the audio buffer it came from.
package struct TimedWord: Sendable, Equatable {
    /// The word with Whisper's leading space.
    package var text: String
    package var start: Double
    package var end: Double
    /// Index of the Whisper segment it belongs to in its pass.
    package var segment: Int

    package init(text: String, start: Double, end: Double, segment: Int) {
        self.text = text
        self.start = start
        self.end = end
        self.segment = segment
    }

    /// Lower-cased letters and digits only: "Hello," and " hello" agree.
    var key: String { String(text.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init)) }
}

/// Local agreement (Macháček et al. 2023, "Turning Whisper into Real-Time Transcription System"):
/// the audio buffer is re-transcribed on every pass, and a word becomes final once two
/// consecutive passes agree on it and on everything before it. Final words still inside the
/// buffer reappear at the head of later hypotheses and are skipped there.
package struct LocalAgreement: Sendable {
    /// Final words whose audio is still in the buffer.
    package private(set) var committedInBuffer: [TimedWord] = []
    /// The last pass's words after the final ones: the partial text.
    package private(set) var tentative: [TimedWord] = []

    package init() {}

    /// Takes one pass's words. Returns the words that just became final, and how many words at
    /// the head of `hypothesis` are final in all (skipped old ones plus new ones).
    package mutating func insert(_ hypothesis: [TimedWord]) -> (final: [TimedWord], finalPrefix: Int) {
        let skipped = committedPrefixLength(of: hypothesis)
        let words = Array(hypothesis[skipped...])
        var n = 0
        while n < words.count && n < tentative.count && !words[n].key.isEmpty && words[n].key == tentative[n].key { n += 1 }
        let final = Array(words[..<n])
        committedInBuffer += final
        tentative = Array(words[n...])
        return (final, skipped + n)
    }

    /// Ends the stream: every tentative word becomes final.
    package mutating func flush() -> [TimedWord] {
        let rest = tentative
        committedInBuffer += rest
        tentative = []
        return rest
    }

    /// Forces the first `count` tentative words final (the buffer must be cut before they agree).
    package mutating func force(_ count: Int) -> [TimedWord] {
        let forced = Array(tentative.prefix(count))
        committedInBuffer += forced
        tentative.removeFirst(forced.count)
        return forced
    }

    /// The buffer was cut after its first `count` final words: they are no longer in it.
    package mutating func dropCommitted(_ count: Int) {
        committedInBuffer.removeFirst(min(count, committedInBuffer.count))
    }

    /// Words at the head of `hypothesis` that are already final. Usually the hypothesis starts
    /// with them; when Whisper re-words the start of the buffer, the last few final words are
    /// looked for near where they should end, and failing that the count of final words is
    /// taken as is (a re-worded final word must not come back as new text).
    private func committedPrefixLength(of hypothesis: [TimedWord]) -> Int {
        let c = committedInBuffer.map(\.key), h = hypothesis.map(\.key)
        guard !c.isEmpty else { return 0 }
        if h.count >= c.count && Array(h[..<c.count]) == c { return c.count }
        let minimum = c.count >= 2 ? 2 : 1
        for k in stride(from: min(4, c.count), through: minimum, by: -1) {
            let tail = Array(c.suffix(k))
            let ends = (k...max(k, h.count)).filter { abs($0 - c.count) <= 4 && $0 <= h.count }
            for end in ends.sorted(by: { abs($0 - c.count) < abs($1 - c.count) }) where Array(h[(end - k)..<end]) == tail {
                return end
            }
        }
        return min(c.count, h.count)
    }
}
