import Tokenizers

/// Splits text into pieces of at most `maxTokens` tokens, preferring paragraph, then sentence,
/// then word boundaries, so a chunk rarely ends mid-thought.
struct TextChunker {
    let tokenizer: Tokenizer
    let maxTokens: Int

    func count(_ s: Substring) -> Int { tokenizer.encode(String(s), addBOS: false, parseSpecial: false).count }

    func chunks(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var currentTokens = 0
        for unit in units(text[...]) {
            let n = count(unit)
            if currentTokens + n > maxTokens && !current.isEmpty {
                out.append(current)
                current = ""
                currentTokens = 0
            }
            current += unit
            currentTokens += n
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { out.append(current) }
        return out
    }

    /// Pieces that each fit in `maxTokens`, split at the coarsest boundary that works.
    private func units(_ text: Substring) -> [Substring] {
        if count(text) <= maxTokens { return [text] }
        for separator in ["\n\n", ". ", " "] {
            let parts = text.split(separator: separator, omittingEmptySubsequences: false)
            guard parts.count > 1 else { continue }
            var pieces: [Substring] = []
            var idx = text.startIndex
            for (i, p) in parts.enumerated() {
                let end = i < parts.count - 1 ? text.index(p.endIndex, offsetBy: separator.count) : p.endIndex
                pieces.append(text[idx..<end])
                idx = end
            }
            return pieces.flatMap { units($0) }
        }
        // One unbroken run longer than a chunk: cut it by characters.
        let half = text.index(text.startIndex, offsetBy: text.count / 2)
        return units(text[..<half]) + units(text[half...])
    }
}

import Foundation
