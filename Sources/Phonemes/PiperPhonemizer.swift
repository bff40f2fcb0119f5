import Foundation

/// One sentence of input as a Piper voice reads it.
package struct PhonemizedSentence: Sendable, Equatable {
    /// The source text of the sentence.
    package var text: String
    /// Single Unicode scalars (NFD), stress marks, spaces and clause punctuation included.
    package var phonemes: [Unicode.Scalar]
    /// Model input ids (`^ _ p _ p _ … $`).
    package var ids: [Int]

    package init(text: String, phonemes: [Unicode.Scalar], ids: [Int]) {
        self.text = text
        self.phonemes = phonemes
        self.ids = ids
    }

    /// The phonemes as one string.
    package var phonemeString: String { String(String.UnicodeScalarView(phonemes)) }
}

/// Text to per-sentence phoneme ids for one Piper voice, reproducing piper-tts 1.8.0's
/// `PiperVoice.phonemize` + `phonemes_to_ids` over Debian's espeak-ng.
///
/// Sentences are espeak-ng's: a clause ending in `.`, `?` or `!` closes one. Each clause's
/// phonemes get its terminator appended, plus a space after `,` `:` `;` (the sentence goes
/// on); the sentence is then decomposed (NFD) into single code points, so a phoneme with a
/// combining mark becomes two symbols, as the voice was trained.
package struct PiperPhonemizer: Sendable {
    package let config: PiperVoiceConfig
    private let espeak: EspeakPhonemizer

    package init(config: PiperVoiceConfig, espeak: EspeakPhonemizer = .shared) {
        self.config = config
        self.espeak = espeak
    }

    /// The sentences of `text`, in order; sentences with no phonemes (only punctuation) are dropped.
    package func sentences(_ text: String) throws(PhonemeError) -> [PhonemizedSentence] {
        assemble(try espeak.clauses(text, voice: config.espeakVoice)[...])
    }

    /// The sentences of `text` that are closed, and the UTF-8 length of the text they span;
    /// the rest of `text` is a sentence still being written (a language model's answer as it
    /// streams). A sentence is closed when `.`, `?` or `!` ended it and espeak-ng read words
    /// after it: espeak decides a clause's end by looking at what follows ("3." may go on as
    /// "3.14", "Mr." as "Mr. Smith"), so only then can appending text no longer change it.
    /// Cutting the text at `consumed` and reading the rest later gives the sentences that
    /// reading the whole text at once would.
    package func closedSentences(_ text: String) throws(PhonemeError) -> (sentences: [PhonemizedSentence], consumed: Int) {
        let clauses = try espeak.clauses(text, voice: config.espeakVoice)
        guard let lastWithText = clauses.lastIndex(where: { !$0.text.isEmpty }),
              let last = clauses[..<lastWithText].lastIndex(where: \.endsSentence) else { return ([], 0) }
        return (assemble(clauses[...last]), clauses[last].sourceEnd)
    }

    /// Clauses to sentences: each clause's terminator kept in its phonemes, a sentence closed
    /// by every clause that ends one (and by the end of the clauses).
    private func assemble(_ clauses: ArraySlice<EspeakClause>) -> [PhonemizedSentence] {
        var sentences: [PhonemizedSentence] = []
        var phonemes = ""
        var source: [String] = []
        for clause in clauses {
            phonemes += clause.phonemes + clause.terminator.phoneme
            if [.comma, .colon, .semicolon].contains(clause.terminator) { phonemes += " " }
            if !clause.text.isEmpty { source.append(clause.text) }
            if clause.endsSentence {
                append(phonemes, text: source.joined(separator: " "), to: &sentences)
                phonemes = ""
                source = []
            }
        }
        append(phonemes, text: source.joined(separator: " "), to: &sentences)
        return sentences
    }

    private func append(_ phonemes: String, text: String, to sentences: inout [PhonemizedSentence]) {
        let scalars = Array(phonemes.decomposedStringWithCanonicalMapping.unicodeScalars)
        guard scalars.contains(where: { !$0.properties.isWhitespace && !Self.punctuation.contains($0) }) else { return }
        sentences.append(PhonemizedSentence(text: text, phonemes: scalars, ids: config.phonemeIDs(for: scalars)))
    }

    private static let punctuation: Set<Unicode.Scalar> = [".", ",", "?", "!", ":", ";"]
}
