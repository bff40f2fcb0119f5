import EngineSupport
import Foundation

/// How the next token is chosen from the logits.
package struct SamplingParameters: Sendable, Equatable {
    /// 0 means greedy (argmax, lowest id on ties).
    package var temperature: Float = 0.8
    /// Keep only the k most likely tokens (0 = off).
    package var topK: Int = 40
    /// Keep the smallest set whose probability reaches p (1 = off).
    package var topP: Float = 0.95
    /// Drop tokens less likely than minP × the top token's probability (0 = off).
    package var minP: Float = 0.05
    /// Divide positive (multiply negative) logits of recently seen tokens (1 = off).
    package var repetitionPenalty: Float = 1.0
    /// How many recent tokens the repetition penalty looks at.
    package var repetitionWindow: Int = 64
    /// Seed of the sampler's random generator.
    package var seed: UInt64 = 0

    package init() {}

    /// The parameters of choice `index` when one request asks for several replies (OpenAI's
    /// `n`). Choice 0 keeps the seed, so it is the reply the request alone would give; each other
    /// choice draws its own seed from the seed and its index, so one seed reproduces them all.
    package func choice(_ index: Int) -> SamplingParameters {
        guard index > 0 else { return self }
        var p = self
        var rng = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        p.seed = rng.next()
        return p
    }

    /// Deterministic argmax decoding.
    package static var greedy: SamplingParameters {
        var p = SamplingParameters()
        p.temperature = 0
        return p
    }
}

/// Chooses tokens from logits. Reuses its candidate buffer, so sampling allocates nothing per
/// token once warmed up.
package struct Sampler {
    package let parameters: SamplingParameters
    private var rng: SplitMix64
    private var candidates: [(id: Int32, logit: Float)] = []

    package init(_ parameters: SamplingParameters) {
        self.parameters = parameters
        self.rng = SplitMix64(seed: parameters.seed)
    }

    /// Picks the next token from `logits` (vocab), given the tokens generated or seen so far.
    package mutating func sample(_ logits: UnsafeMutablePointer<Float>, count: Int, history: ArraySlice<Int32>) -> Int32 {
        let p = parameters
        if p.repetitionPenalty != 1 {
            for id in Set(history.suffix(p.repetitionWindow)) where Int(id) < count {
                let l = logits[Int(id)]
                logits[Int(id)] = l > 0 ? l / p.repetitionPenalty : l * p.repetitionPenalty
            }
        }
        if p.temperature <= 0 { return Self.argmax(logits, count: count) }

        selectTop(p.topK > 0 ? min(p.topK, count) : count, logits, count: count)
        // Masked tokens (-infinity, see TokenConstraint) are never candidates.
        while candidates.count > 1 && candidates[candidates.count - 1].logit == -.infinity { candidates.removeLast() }

        // Softmax over the survivors at the chosen temperature.
        let top = candidates[0].logit
        var probs = candidates.map { expf(($0.logit - top) / p.temperature) }
        var sum = probs.reduce(0, +)
        for i in probs.indices { probs[i] /= sum }
        var keep = probs.count
        if p.minP > 0 {
            let floor = p.minP * probs[0]
            keep = max(1, probs.prefix { $0 >= floor }.count)
        }
        if p.topP < 1 {
            var acc: Float = 0
            for i in 0..<keep {
                acc += probs[i]
                if acc >= p.topP { keep = i + 1; break }
            }
        }
        probs.removeSubrange(keep...)
        sum = probs.reduce(0, +)
        var r = Float(rng.nextUnit()) * sum
        for i in probs.indices {
            r -= probs[i]
            if r <= 0 { return candidates[i].id }
        }
        return candidates[keep - 1].id
    }

    /// Fills `candidates` with the `k` largest logits, descending (lower id first on ties).
    /// For small k an insertion pass over the vocabulary beats sorting all of it.
    private mutating func selectTop(_ k: Int, _ logits: UnsafePointer<Float>, count: Int) {
        candidates.removeAll(keepingCapacity: true)
        if k >= count / 4 {
            for i in 0..<count { candidates.append((Int32(i), logits[i])) }
            candidates.sort { $0.logit > $1.logit || ($0.logit == $1.logit && $0.id < $1.id) }
            if k < candidates.count { candidates.removeSubrange(k...) }
            return
        }
        Self.insertTop(k, of: UnsafeBufferPointer(start: logits, count: count), into: &candidates)
    }

    /// Appends to `top` (empty or already descending) the `k` largest of `logits`, descending,
    /// lower id first on ties: one insertion pass, a logit entering only if it beats the last kept.
    static func insertTop(_ k: Int, of logits: UnsafeBufferPointer<Float>, into top: inout [(id: Int32, logit: Float)]) {
        guard k > 0 else { return }
        for i in 0..<logits.count {
            let l = logits[i]
            if top.count == k {
                guard l > top[k - 1].logit else { continue }
                top.removeLast()
            }
            var j = top.count
            while j > 0 && top[j - 1].logit < l { j -= 1 }
            top.insert((Int32(i), l), at: j)
        }
    }

    /// Index of the largest logit; the lowest index wins ties (as llama.cpp's greedy sampler).
    package static func argmax(_ logits: UnsafePointer<Float>, count: Int) -> Int32 {
        var best = 0
        var bestValue = -Float.infinity
        for i in 0..<count where logits[i] > bestValue {
            bestValue = logits[i]
            best = i
        }
        return Int32(best)
    }
}
