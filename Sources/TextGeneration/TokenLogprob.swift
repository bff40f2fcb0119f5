import Foundation
import Tokenizers

/// A generated token's log-probability under the model, with the most likely tokens at its step.
///
/// The distribution is the model's own: the log-softmax of the raw logits the token was drawn
/// from, before the repetition penalty, the temperature, top-k/top-p/min-p truncation and any
/// grammar mask. OpenAI's reference does not say which distribution it reports; this is what
/// llama.cpp's server reports by default (`post_sampling_probs: false`) and vLLM's default
/// (`raw_logprobs`), and it makes the figures a property of the model and the text rather than
/// of the sampling settings. So a sampled or grammar-forced token can have a low logprob, and
/// under greedy decoding without a constraint the chosen token is always the top alternative.
package struct TokenLogprob: Sendable, Equatable {
    /// One of the most likely tokens at a step.
    package struct Alternative: Sendable, Equatable {
        package var id: Int32
        /// The token's bytes as the tokenizer renders them (control tokens show their text).
        package var bytes: [UInt8]
        package var logprob: Float
    }

    package var id: Int32
    package var bytes: [UInt8]
    /// ≤ 0; natural log.
    package var logprob: Float
    /// The step's most likely tokens, most likely first (lower id first on ties); as many as
    /// `GenerationOptions.logprobs` asked for, or fewer if the vocabulary is smaller.
    package var top: [Alternative]
}

/// Computes `TokenLogprob`s inside the decode loop. It copies the logits before the sampler edits
/// them (penalty, masks), then, once the token is chosen, takes the log-sum-exp of the copy and
/// its `k` largest entries. The copy and the top-k buffer are allocated once per generation; only
/// the returned values (token bytes, the alternatives) are allocated per token, and only when
/// logprobs were asked for.
struct LogprobRecorder {
    let k: Int
    private var raw: [Float]
    private var top: [(id: Int32, logit: Float)] = []

    init(k: Int, vocabularySize: Int) {
        self.k = max(0, min(k, vocabularySize))
        raw = [Float](repeating: 0, count: vocabularySize)
        top.reserveCapacity(self.k + 1)
    }

    /// Keeps a copy of the step's logits. (vocab)
    mutating func capture(_ logits: UnsafePointer<Float>) {
        let count = raw.count
        raw.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: logits, count: count) }
    }

    /// The captured step's figures for the chosen token `id`.
    mutating func record(_ id: Int32, tokenizer: Tokenizer) -> TokenLogprob {
        let k = self.k
        var top: [(id: Int32, logit: Float)] = []
        swap(&top, &self.top)  // reuse the buffer without a copy-on-write
        top.removeAll(keepingCapacity: true)
        let logSum: Float = raw.withUnsafeBufferPointer { logits in
            var peak = -Float.infinity
            for l in logits where l > peak { peak = l }
            // Summed in Double: tens of thousands of terms, most of them tiny.
            var sum = 0.0
            for l in logits { sum += Double(expf(l - peak)) }
            Sampler.insertTop(k, of: logits, into: &top)
            return peak + Float(log(sum))
        }
        self.top = top
        let chosen = Int(id) < raw.count ? raw[Int(id)] : -.infinity
        return TokenLogprob(id: id, bytes: Array(tokenizer.pieceBytes(id)), logprob: min(0, chosen - logSum),
                            top: top.map { .init(id: $0.id, bytes: Array(tokenizer.pieceBytes($0.id)), logprob: min(0, $0.logit - logSum)) })
    }
}
