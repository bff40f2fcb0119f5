import Foundation
import Models

/// Word timestamps for one window, after faster-whisper 1.2.1's `add_word_timestamps`,
/// `find_alignment` and `merge_punctuations` (from OpenAI whisper's `timing.py`).
extension Transcriber {
    /// A word of the alignment: its text, token count and times relative to the window.
    struct AlignedWord {
        var word: String
        var tokens: [Int32]
        var start: Double
        var end: Double
        var probability: Double
    }

    static let prependPunctuations = "\"'“¿([{-"
    static let appendPunctuations = "\"'.。,，!！?？:：”)]}、"
    /// Python's `string.punctuation`.
    private static let asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

    /// Times the words of `pieces` (one window's segments, decoded over the window in the state)
    /// and moves each piece's start and end to its first and last word as faster-whisper does.
    /// `frames` is the window's mel frames of audio; `lastSpeech` carries the end of the last
    /// speech across windows. Returns the words of each piece.
    func alignWords(_ pieces: inout [TimedTokens], timeOffset: Double, frames: Int, language: String,
                    options: TranscriptionOptions, lastSpeech: inout Double) -> [[TranscriptionWord]] {
        let perPiece = pieces.map { $0.tokens.filter { $0 < tokenizer.endOfText } }
        let text = perPiece.flatMap { $0 }
        var alignment = findAlignment(text, frames: frames, language: language, options: options)
        guard !alignment.isEmpty else { return pieces.map { _ in [] } }

        let durations = alignment.map { $0.end - $0.start }.filter { $0 != 0 }.sorted()
        let median = durations.isEmpty ? 0 : min(0.7, Self.median(durations))
        let maxDuration = median * 2
        // Truncate long words at sentence boundaries.
        if !durations.isEmpty {
            let marks = Set([".", "。", "!", "！", "?", "？"])
            for i in 1..<alignment.count where alignment[i].end - alignment[i].start > maxDuration {
                if marks.contains(alignment[i].word) {
                    alignment[i].end = alignment[i].start + maxDuration
                } else if marks.contains(alignment[i - 1].word) {
                    alignment[i].start = alignment[i].end - maxDuration
                }
            }
        }
        Self.mergePunctuations(&alignment)

        var out: [[TranscriptionWord]] = []
        var index = 0
        for p in pieces.indices {
            var saved = 0
            var words: [TranscriptionWord] = []
            while index < alignment.count && saved < perPiece[p].count {
                let timing = alignment[index]
                if !timing.word.isEmpty {
                    words.append(TranscriptionWord(word: timing.word, start: Self.round2(timeOffset + timing.start),
                                                   end: Self.round2(timeOffset + timing.end), probability: timing.probability))
                }
                saved += timing.tokens.count
                index += 1
            }
            if !words.isEmpty {
                // The first and second word after a pause are at most twice the median long.
                let tooLong = words[0].end - words[0].start > maxDuration
                    || (words.count > 1 && words[1].end - words[0].start > maxDuration * 2)
                if words[0].end - lastSpeech > median * 4 && tooLong {
                    if words.count > 1 && words[1].end - words[1].start > maxDuration {
                        let boundary = max(words[1].end / 2, words[1].end - maxDuration)
                        words[0].end = boundary
                        words[1].start = boundary
                    }
                    words[0].start = max(0, words[0].end - maxDuration)
                }
                // Prefer the segment's own timestamps to a first or last word that runs long.
                if pieces[p].start < words[0].end && pieces[p].start - 0.5 > words[0].start {
                    words[0].start = max(0, min(words[0].end - median, pieces[p].start))
                } else {
                    pieces[p].start = words[0].start
                }
                let last = words.count - 1
                if pieces[p].end > words[last].start && pieces[p].end + 0.5 < words[last].end {
                    words[last].end = max(words[last].start + median, pieces[p].end)
                } else {
                    pieces[p].end = words[last].end
                }
                lastSpeech = pieces[p].end
            }
            out.append(words)
        }
        return out
    }

    /// faster-whisper's `find_alignment`: the forced pass, DTW, and the times at which the
    /// path reaches each word's first token.
    func findAlignment(_ text: [Int32], frames: Int, language: String, options: TranscriptionOptions) -> [AlignedWord] {
        guard !text.isEmpty else { return [] }
        let start = tokenizer.startSequence(language: tokenizer.isMultilingual ? language : nil,
                                            translate: options.task == .translate)
        let forced = start + [tokenizer.noTimestamps] + text + [tokenizer.endOfText]
        guard forced.count <= model.config.textContext else { return [] }
        let positions = max(1, min(frames / 2, state.encodedPositions))
        let attention = model.crossAttention(forcing: forced, positions: positions, textVocabulary: Int(tokenizer.endOfText),
                                             state: state)
        let full = WordAlignment.matrix(attention.weights, heads: attention.heads, rows: attention.rows, positions: positions)
        // Rows from <|notimestamps|> (predicting the first text token) to the last text token
        // (predicting end-of-text).
        let rows = text.count + 1
        let matrix = full[(start.count * positions)..<((start.count + rows) * positions)].map { -$0 }
        let path = WordAlignment.dtw(matrix, rows: rows, columns: positions)
        let jumps = WordAlignment.rowStartTimes(rows: path.rows, columns: path.columns)
        let probabilities = attention.nextTokenProbabilities[start.count..<(start.count + text.count)].map(Double.init)

        let (words, wordTokens) = splitWords(text + [tokenizer.endOfText], language: language)
        guard wordTokens.count > 1 else { return [] }
        var out: [AlignedWord] = []
        var boundary = 0
        for w in 0..<(words.count - 1) {
            let next = boundary + wordTokens[w].count
            guard next < jumps.count else { break }
            let mean = probabilities[boundary..<min(next, probabilities.count)].reduce(0, +) / Double(max(1, next - boundary))
            out.append(AlignedWord(word: words[w], tokens: wordTokens[w], start: jumps[boundary], end: jumps[next], probability: mean))
            boundary = next
        }
        return out
    }

    /// Whisper's `split_to_word_tokens`: tokens grouped into whole characters, then (except
    /// for languages written without spaces) into words that start at a space, a punctuation
    /// mark or a special token.
    func splitWords(_ tokens: [Int32], language: String) -> ([String], [[Int32]]) {
        var subwords: [String] = [], subwordTokens: [[Int32]] = []
        var current: [Int32] = []
        for token in tokens {
            current.append(token)
            let decoded = tokenizer.decode(current)
            // A token that ends inside a multi-byte character waits for the rest of it.
            if decoded.contains("\u{FFFD}") && token != tokens.last { continue }
            subwords.append(decoded)
            subwordTokens.append(current)
            current = []
        }
        if ["zh", "ja", "th", "lo", "my", "yue"].contains(language) { return (subwords, subwordTokens) }
        var words: [String] = [], wordTokens: [[Int32]] = []
        for (subword, ids) in zip(subwords, subwordTokens) {
            let special = ids[0] >= tokenizer.endOfText
            let trimmed = subword.trimmingCharacters(in: .whitespaces)
            let punctuation = trimmed.isEmpty || Self.asciiPunctuation.contains(trimmed)
            if special || subword.hasPrefix(" ") || punctuation || words.isEmpty {
                words.append(subword)
                wordTokens.append(ids)
            } else {
                words[words.count - 1] += subword
                wordTokens[wordTokens.count - 1] += ids
            }
        }
        return (words, wordTokens)
    }

    /// Opening marks join the word after them and closing marks the word before, keeping that
    /// word's times (whisper's `merge_punctuations`).
    static func mergePunctuations(_ a: inout [AlignedWord]) {
        guard a.count > 1 else { return }
        var i = a.count - 2, j = a.count - 1
        while i >= 0 {
            if a[i].word.hasPrefix(" ") && prependPunctuations.contains(a[i].word.trimmingCharacters(in: .whitespaces))
                && !a[i].word.trimmingCharacters(in: .whitespaces).isEmpty {
                a[j].word = a[i].word + a[j].word
                a[j].tokens = a[i].tokens + a[j].tokens
                a[i].word = ""
                a[i].tokens = []
            } else {
                j = i
            }
            i -= 1
        }
        i = 0
        j = 1
        while j < a.count {
            if !a[i].word.hasSuffix(" ") && !a[j].word.isEmpty && appendPunctuations.contains(a[j].word) {
                a[i].word += a[j].word
                a[i].tokens += a[j].tokens
                a[j].word = ""
                a[j].tokens = []
            } else {
                i = j
            }
            j += 1
        }
    }

    static func median(_ sorted: [Double]) -> Double {
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    static func round2(_ x: Double) -> Double { (x * 100).rounded() / 100 }
}
