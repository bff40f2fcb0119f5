import StructuredOutput

extension Sampler {
    /// Samples a token the constraint allows.
    ///
    /// The unconstrained choice is usually allowed, and checking one token is far cheaper than
    /// masking the vocabulary, so the sampler draws first and masks only when the draw is
    /// refused. For plain temperature sampling that is the masked distribution exactly
    /// (accept-or-redraw); with top-k/p truncation it differs slightly, always within the
    /// allowed set. With a repetition penalty (which edits the logits) it always masks first.
    package mutating func sample(_ logits: UnsafeMutablePointer<Float>, count: Int, history: ArraySlice<Int32>,
                                 constraint: any TokenConstraint, remaining: Int) throws(EngineError) -> Int32 {
        if parameters.repetitionPenalty == 1 {
            let first = sample(logits, count: count, history: history)
            if constraint.allows(first, remaining: remaining) { return first }
        }
        try constraint.mask(logits, count: count, remaining: remaining)
        let id = sample(logits, count: count, history: history)
        if constraint.allows(id, remaining: remaining) { return id }
        // Float rounding in top-p can leave a masked candidate last in line; argmax of the
        // masked logits is always allowed.
        return Self.argmax(logits, count: count)
    }
}
