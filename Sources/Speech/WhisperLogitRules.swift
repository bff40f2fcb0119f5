import Foundation
import Kernels

/// What Whisper may emit at each step, applied to one row of logits before the search picks a
/// token; then the row becomes log-probabilities. The rules and their order are CTranslate2
/// 4.x's for `WhisperModel.generate` (`SuppressTokens`, `SuppressTokensBegin`,
/// `ApplyTimestampRules` in `src/models/whisper.cc`), which faster-whisper's transcripts come
/// from:
/// - `suppress` at every step; `suppressAtBegin` (blank, end-of-text) at the first step;
/// - `<|notimestamps|>` never; with timestamps, the first token is a timestamp no later than
///   `maxInitialTimestamp`; timestamps come in pairs (after a lone timestamp: end-of-text or
///   a timestamp not earlier than it; after a pair: text); after text, only timestamps later
///   than the last one; and when the timestamps' total probability beats every single text
///   token, a timestamp must follow.
/// Disabled entries get `-Float.greatestFiniteMagnitude`, as CTranslate2 does.
struct WhisperLogitRules {
    let vocabularySize: Int
    let suppress: [Int32]
    let suppressAtBegin: [Int32]
    let timestamps: Bool
    let endOfText: Int
    let noTimestamps: Int
    let timestampBegin: Int
    let maxInitialTimestamp: Int

    static let disabled = -Float.greatestFiniteMagnitude

    /// Applies the rules to `row` at decoding `step` (0 = the first token after the prompt),
    /// given the tokens this hypothesis has produced so far; leaves log-probabilities in `row`.
    func apply(_ row: UnsafeMutablePointer<Float>, step: Int, history: ArraySlice<Int32>) {
        for id in suppress { row[Int(id)] = Self.disabled }
        if step == 0 { for id in suppressAtBegin { row[Int(id)] = Self.disabled } }
        if timestamps { applyTimestampRules(row, step: step, history: history) }
        Self.logSoftmax(row, count: vocabularySize)
    }

    private func applyTimestampRules(_ row: UnsafeMutablePointer<Float>, step: Int, history: ArraySlice<Int32>) {
        let v = vocabularySize, begin = timestampBegin
        row[noTimestamps] = Self.disabled
        if step == 0 {
            for i in 0..<begin { row[i] = Self.disabled }
            if maxInitialTimestamp + 1 < v { for i in (maxInitialTimestamp + 1)..<v { row[i] = Self.disabled } }
            return
        }
        let last = Int(history[history.endIndex - 1])
        var checkProbability = true
        if last >= begin {
            let penultimate = history.count >= 2 ? Int(history[history.endIndex - 2]) : last
            if penultimate >= begin {
                for i in begin..<v { row[i] = Self.disabled }
                checkProbability = false
            } else {
                for i in 0..<endOfText { row[i] = Self.disabled }
                for i in begin..<last { row[i] = Self.disabled }
            }
        } else if let lastTimestamp = history.last(where: { Int($0) >= begin }) {
            for i in begin...Int(lastTimestamp) { row[i] = Self.disabled }
        }
        guard checkProbability else { return }
        // Compare in log-probabilities, as CTranslate2 does after its log-softmax.
        let total = VectorMath.logSumExp(row, count: v)
        var maxText = -Float.infinity
        for i in 0..<begin where row[i] > maxText { maxText = row[i] }
        let timestamps = VectorMath.logSumExp(row + begin, count: v - begin)
        if timestamps - total > maxText - total {
            for i in 0..<begin { row[i] = Self.disabled }
        }
    }

    /// row = row − log Σ exp(row), in place.
    static func logSoftmax(_ row: UnsafeMutablePointer<Float>, count: Int) {
        let shift = VectorMath.logSumExp(row, count: count)
        for i in 0..<count { row[i] -= shift }
    }

    /// Probability of `id` under softmax(row), row left unchanged.
    static func probability(of id: Int, in row: UnsafePointer<Float>, count: Int) -> Double {
        var top = -Float.infinity
        for i in 0..<count where row[i] > top { top = row[i] }
        var sum: Double = 0
        for i in 0..<count { sum += Double(expf(row[i] - top)) }
        return Double(expf(row[id] - top)) / sum
    }
}
