import EngineSupport
import Foundation
import Models

/// One decoding pass over an encoded window, reproducing CTranslate2's `Whisper.generate`
/// (`src/models/whisper.cc`, `src/decoding.cc`): the prompt up to the token before the last
/// start token is prefilled, then greedy, sampled or beam search runs from that start token
/// for at most min(224, 448 − prompt) steps.
struct WhisperSearch {
    let model: WhisperModel
    let state: WhisperState
    let rules: WhisperLogitRules
    let endOfText: Int32
    let startOfTranscript: Int32
    let noSpeech: Int

    /// The best hypothesis: its tokens (without end-of-text), its score (summed log-probability
    /// over its length^lengthPenalty) and the no-speech probability at `<|startoftranscript|>`.
    struct Result: Equatable {
        var tokens: [Int32]
        var score: Float
        var noSpeechProb: Double
    }

    enum Mode {
        case greedy
        case beam(size: Int, patience: Float)
        case sample(temperature: Float, count: Int)
    }

    /// Decodes after `prompt`, whose last token is the start token (`<|startoftranscript|>` or
    /// the last task token).
    func run(prompt: [Int32], mode: Mode, lengthPenalty: Float, maxNewTokens: Int?,
             random: inout SplitMix64, isCancelled: () -> Bool) throws(SpeechError) -> Result {
        guard let sotIndex = prompt.firstIndex(of: startOfTranscript) else {
            preconditionFailure("a Whisper prompt contains <|startoftranscript|>")
        }
        let prefix = Array(prompt.dropLast())
        let start = prompt[prompt.count - 1]
        state.resetDecoder()
        var noSpeechProb = 0.0
        let sotIsStart = sotIndex == prompt.count - 1
        if let logits = model.prefill(prefix, state: state, logitsRow: sotIsStart ? nil : sotIndex) {
            noSpeechProb = logits.withUnsafeBufferPointer {
                WhisperLogitRules.probability(of: noSpeech, in: $0.baseAddress!, count: rules.vocabularySize)
            }
        }
        let context = model.config.textContext
        var maxLength = min(context / 2, context - prefix.count)
        if let m = maxNewTokens { maxLength = min(maxLength, m) }
        var result: Result
        switch mode {
        case .greedy, .sample:
            result = try sampleSearch(start: start, mode: mode, maxLength: maxLength, lengthPenalty: lengthPenalty,
                                      random: &random, sotIsStart: sotIsStart, isCancelled: isCancelled)
        case let .beam(size, patience):
            result = try beamSearch(start: start, size: size, patience: patience, maxLength: maxLength,
                                    lengthPenalty: lengthPenalty, sotIsStart: sotIsStart, isCancelled: isCancelled)
        }
        if !sotIsStart { result.noSpeechProb = noSpeechProb }
        return result
    }

    /// Greedy (one row) or `count` independent sampled rows; the best finished row wins.
    private func sampleSearch(start: Int32, mode: Mode, maxLength: Int, lengthPenalty: Float, random: inout SplitMix64,
                              sotIsStart: Bool, isCancelled: () -> Bool) throws(SpeechError) -> Result {
        var temperature: Float = 0
        var rows = 1
        if case let .sample(t, count) = mode { (temperature, rows) = (t, count) }
        if rows > 1 { state.reorderBeams([Int](repeating: 0, count: rows)) }
        let vocab = rules.vocabularySize
        var histories = [[Int32]](repeating: [], count: rows)
        var scores = [Float](repeating: 0, count: rows)
        var alive = Array(0..<rows)  // hypothesis index of each live decoder row
        var inputs = [Int32](repeating: start, count: rows)
        var finished: [(tokens: [Int32], score: Float)] = []
        var noSpeechProb = 0.0
        for step in 0..<maxLength {
            if isCancelled() { throw .cancelled }
            model.step(inputs, state: state)
            if step == 0 && sotIsStart {
                noSpeechProb = WhisperLogitRules.probability(of: noSpeech, in: state.logits(beam: 0), count: vocab)
            }
            var keep: [Int] = []
            var next: [Int32] = []
            for (row, h) in alive.enumerated() {
                let logits = state.logits(beam: row)
                rules.apply(logits, step: step, history: histories[h][...])
                let id = temperature > 0 ? Self.sample(logits, count: vocab, temperature: temperature, random: &random)
                                         : Self.argmax(logits, count: vocab)
                scores[h] += logits[id]
                let token = Int32(id)
                if token == endOfText || step + 1 == maxLength {
                    if token != endOfText { histories[h].append(token) }
                    finished.append((histories[h], Self.finalize(scores[h], length: histories[h].count, penalty: lengthPenalty)))
                } else {
                    histories[h].append(token)
                    keep.append(row)
                    next.append(token)
                }
            }
            if keep.isEmpty { break }
            if keep.count != alive.count {
                state.reorderBeams(keep)
                alive = keep.map { alive[$0] }
            }
            inputs = next
        }
        let best = finished.max { $0.score < $1.score } ?? ([], 0)
        return Result(tokens: best.tokens, score: best.score, noSpeechProb: noSpeechProb)
    }

    /// CTranslate2's beam search: 2·size candidates per step from the flattened
    /// (beam, token) scores; a candidate in the first `size` that ends (end-of-text or the last
    /// step) becomes a hypothesis and its slot goes to the next candidate that does not end.
    /// Stops once round(size · patience) hypotheses exist; the best length-normalised wins.
    private func beamSearch(start: Int32, size: Int, patience: Float, maxLength: Int, lengthPenalty: Float,
                            sotIsStart: Bool, isCancelled: () -> Bool) throws(SpeechError) -> Result {
        let vocab = rules.vocabularySize
        let candidatesPerStep = 2 * size
        let maxHypotheses = Int((Float(size) * patience).rounded())
        var beams: [[Int32]] = [[]]
        var beamScores: [Float] = [0]
        var inputs: [Int32] = [start]
        var hypotheses: [(tokens: [Int32], score: Float)] = []
        var noSpeechProb = 0.0
        for step in 0..<maxLength {
            if isCancelled() { throw .cancelled }
            model.step(inputs, state: state)
            if step == 0 && sotIsStart {
                noSpeechProb = WhisperLogitRules.probability(of: noSpeech, in: state.logits(beam: 0), count: vocab)
            }
            var top = TopCandidates(capacity: candidatesPerStep)
            for (b, history) in beams.enumerated() {
                let logits = state.logits(beam: b)
                rules.apply(logits, step: step, history: history[...])
                let base = beamScores[b]
                for id in 0..<vocab { top.offer(score: logits[id] + base, beam: b, token: Int32(id)) }
            }
            let candidates = top.sorted()
            let lastStep = step + 1 == maxLength
            var nextOffset = size
            var chosen: [Int] = []
            for k in 0..<min(size, candidates.count) {
                var pick = k
                let c = candidates[k]
                if c.token == endOfText || lastStep {
                    var tokens = beams[c.beam]
                    if c.token != endOfText { tokens.append(c.token) }
                    hypotheses.append((tokens, c.score))
                    if let j = (nextOffset..<candidates.count).first(where: { candidates[$0].token != endOfText }) {
                        pick = j
                        nextOffset = j + 1
                    }
                }
                chosen.append(pick)
            }
            if lastStep || hypotheses.count >= maxHypotheses { break }
            state.reorderBeams(chosen.map { candidates[$0].beam })
            beams = chosen.map { beams[candidates[$0].beam] + [candidates[$0].token] }
            beamScores = chosen.map { candidates[$0].score }
            inputs = chosen.map { candidates[$0].token }
        }
        let best = hypotheses.map { ($0.tokens, Self.finalize($0.score, length: $0.tokens.count, penalty: lengthPenalty)) }
            .max { $0.1 < $1.1 } ?? ([], 0)
        return Result(tokens: best.0, score: best.1, noSpeechProb: noSpeechProb)
    }

    static func finalize(_ score: Float, length: Int, penalty: Float) -> Float {
        score / powf(Float(length), penalty)
    }

    /// Highest entry; the lowest id on ties.
    static func argmax(_ row: UnsafePointer<Float>, count: Int) -> Int {
        var best = 0
        for i in 1..<count where row[i] > row[best] { best = i }
        return best
    }

    /// A draw from softmax(row / temperature).
    static func sample(_ row: UnsafePointer<Float>, count: Int, temperature: Float, random: inout SplitMix64) -> Int {
        var top = -Float.infinity
        for i in 0..<count where row[i] > top { top = row[i] }
        var total = 0.0
        for i in 0..<count { total += Double(expf((row[i] - top) / temperature)) }
        var target = random.nextUnit() * total
        for i in 0..<count {
            target -= Double(expf((row[i] - top) / temperature))
            if target <= 0 { return i }
        }
        return argmax(row, count: count)
    }
}

/// The best few (beam, token) candidates of a step, by score; ties go to the lower flat index.
struct TopCandidates {
    struct Candidate { var score: Float; var beam: Int; var token: Int32 }
    let capacity: Int
    private var items: [Candidate] = []
    private var floor = -Float.infinity

    init(capacity: Int) {
        self.capacity = capacity
        items.reserveCapacity(capacity + 1)
    }

    @inline(__always) mutating func offer(score: Float, beam: Int, token: Int32) {
        guard items.count < capacity || score > floor else { return }
        var i = items.count
        while i > 0 && items[i - 1].score < score { i -= 1 }
        items.insert(Candidate(score: score, beam: beam, token: token), at: i)
        if items.count > capacity { items.removeLast() }
        if items.count == capacity { floor = items[capacity - 1].score }
    }

    func sorted() -> [Candidate] { items }
}
