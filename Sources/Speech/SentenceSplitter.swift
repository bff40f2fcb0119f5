import Phonemes

/// Cuts text that is still being written (a language model's answer, token by token) into the
/// sentences a voice reads, as soon as each one is closed. The cuts are the synthesizer's own
/// (`PiperPhonemizer.closedSentences`, espeak-ng's clauses), so a streamed answer is spoken in
/// the sentences that synthesizing it whole would give.
package struct SentenceSplitter {
    private let phonemizer: PiperPhonemizer
    /// Text not yet in a closed sentence.
    private var pending = ""
    /// Whether `pending` holds a character that can end a sentence: only then is espeak asked
    /// again (most tokens end no sentence).
    private var mayClose = false

    package init(phonemizer: PiperPhonemizer) {
        self.phonemizer = phonemizer
    }

    /// The text not yet spoken.
    package var unfinished: String { pending }

    /// Appends `text`; returns the sentences it closed, phonemized.
    package mutating func append(_ text: String) throws(SpeechError) -> [PhonemizedSentence] {
        pending += text
        if text.unicodeScalars.contains(where: { Self.enders.contains($0) }) { mayClose = true }
        guard mayClose else { return [] }
        let closed: (sentences: [PhonemizedSentence], consumed: Int)
        do { closed = try phonemizer.closedSentences(pending) } catch { throw .phonemes(error) }
        guard closed.consumed > 0 else { return [] }
        // `consumed` is where espeak began the next clause: a character boundary.
        pending = String(decoding: Array(pending.utf8)[closed.consumed...], as: UTF8.self)
        mayClose = pending.unicodeScalars.contains { Self.enders.contains($0) }
        return closed.sentences
    }

    /// The text is complete: its last sentences, phonemized.
    package mutating func finish() throws(SpeechError) -> [PhonemizedSentence] {
        defer { pending = "" }
        do { return try phonemizer.sentences(pending) } catch { throw .phonemes(error) }
    }

    /// Characters after which espeak-ng may end a sentence (`ClauseTerminator.endsSentence`).
    private static let enders: Set<Unicode.Scalar> = [".", "?", "!"]
}
