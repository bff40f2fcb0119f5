/// Restricts which tokens the generator may choose (grammar-constrained decoding).
///
/// `remaining` is how many tokens may still be generated including the one being chosen
/// (the smaller of what `maxTokens` and the context allow), so a constraint can keep its output
/// completable within the budget.
package protocol TokenConstraint: AnyObject {
    /// Whether `id` may come next.
    func allows(_ id: Int32, remaining: Int) -> Bool
    /// Sets the logit of every token that may not come next to -infinity.
    func mask(_ logits: UnsafeMutablePointer<Float>, count: Int, remaining: Int) throws(EngineError)
    /// Moves past the chosen token.
    func accept(_ id: Int32) throws(EngineError)
    /// Nothing more may follow: the generator stops with `.grammarComplete`.
    var isComplete: Bool { get }
}
