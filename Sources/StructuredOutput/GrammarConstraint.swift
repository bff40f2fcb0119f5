import EngineSupport
import Tokenizers

/// Constrains generation to a `Grammar`: a token is allowed when its bytes keep the recogniser
/// alive and the document can still be finished within the remaining token budget; an
/// end-of-generation token only when the document may end. One instance follows one
/// generation; it is not thread-safe.
package final class GrammarConstraint: TokenConstraint {
    package let grammar: Grammar
    let trie: TokenTrie
    let tokenizer: Tokenizer
    package private(set) var state: GrammarState
    /// Tokens accepted so far.
    package private(set) var acceptedTokens = 0
    /// Full-vocabulary masks computed so far, and the time they took (the sampler masks only
    /// when its first draw is refused).
    package private(set) var masksComputed = 0
    package private(set) var maskSeconds = 0.0
    private var allowed: [Bool]                  // (vocab) scratch of `mask`
    private var depthStates: [GrammarState]      // (longest token + 1) scratch of `mask`

    package init(grammar: Grammar, tokenizer: Tokenizer) {
        self.grammar = grammar
        self.tokenizer = tokenizer
        self.trie = TokenTrie.shared(for: tokenizer)
        self.state = grammar.initialState
        self.allowed = [Bool](repeating: false, count: trie.vocabularySize)
        self.depthStates = [GrammarState](repeating: grammar.initialState, count: trie.maxTokenLength + 1)
    }

    package var isComplete: Bool { state.isDone }

    /// Fewest bytes before the output may end (0: it may end now).
    package var minimumBytesToFinish: Int {
        (try? grammar.withStepper { $0.minimumBytesToFinish(state) }) ?? 0
    }

    /// True while a free-text prefix is still waiting for its trigger.
    package var isInFreeText: Bool { grammar.nodes[Int(state.node)].kind == .freeText }

    package func allows(_ id: Int32, remaining: Int) -> Bool {
        guard id >= 0, Int(id) < trie.vocabularySize else { return false }
        let budget = remaining - 1
        return (try? grammar.withStepper { g in
            if tokenizer.isEndOfGeneration(id) { return g.minimumBytesToFinish(state) == 0 }
            let piece = tokenizer.pieceBytes(id, renderSpecial: false)
            guard !piece.isEmpty else { return false }
            var s = state
            for b in piece where !g.step(&s, b) { return false }
            return budget >= grammar.costBound || g.minimumBytesToFinish(s) <= budget
        }) ?? false
    }

    package func accept(_ id: Int32) throws(EngineError) {
        if tokenizer.isEndOfGeneration(id) { return }
        let piece = tokenizer.pieceBytes(id, renderSpecial: false)
        let next: GrammarState? = try grammar.withStepper { g in
            var s = state
            for b in piece where !g.step(&s, b) { return nil }
            return s
        }
        guard let next, !piece.isEmpty else { throw .noAllowedToken(afterTokens: acceptedTokens) }
        state = next
        acceptedTokens += 1
    }

    package func mask(_ logits: UnsafeMutablePointer<Float>, count: Int, remaining: Int) throws(EngineError) {
        let clock = ContinuousClock()
        let started = clock.now
        defer {
            masksComputed += 1
            maskSeconds += (clock.now - started).seconds
        }
        let budget = remaining - 1
        let tight = budget < grammar.costBound
        if try allowedTokens(budget: budget, tight: tight) {
            for id in trie.endOfGeneration { allowed[Int(id)] = true }
        }
        var any = false
        allowed.withUnsafeBufferPointer { allow in
            for id in 0..<count {
                if id < allow.count && allow[id] { any = true } else { logits[id] = -.infinity }
            }
        }
        guard any else { throw .noAllowedToken(afterTokens: acceptedTokens) }
    }

    /// Fills `allowed` by one preorder walk of the trie; returns whether the output may end.
    private func allowedTokens(budget: Int, tight: Bool) throws(EngineError) -> Bool {
        let start = state
        let trie = self.trie
        let angleTrigger = grammar.triggerFirstByte == UInt8(ascii: "<")
        return try grammar.withStepper { g in
            allowed.withUnsafeMutableBufferPointer { allow in
                depthStates.withUnsafeMutableBufferPointer { states in
                    allow.update(repeating: false)
                    let bytes = trie.bytes, depth = trie.depth, ends = trie.subtreeEnd, deepest = trie.deepest
                    let classes = trie.classes, stringSafe = trie.stringSafe, starts = trie.tokenStart, tokens = trie.tokens
                    func allowRange(_ from: Int32, _ to: Int32) {
                        for k in Int(from)..<Int(to) { allow[Int(tokens[k])] = true }
                    }
                    states[0] = start
                    var i = 0
                    let n = bytes.count
                    while i < n {
                        let d = Int(depth[i])
                        let parent = states[d - 1]
                        let node = g.nodes[Int(parent.node)]
                        // Whole subtrees that stay inside the current lexeme need no walk.
                        if node.kind == .string && stringSafe[i] & GrammarStepper.plainPhaseBit(parent.phase) != 0
                            && Int(parent.length) + Int(deepest[i]) - d + 1 <= Int(node.high) {
                            // A token may end inside a UTF-8 sequence: up to 3 more bytes.
                            var s = parent
                            s.phase = 0
                            if !tight || g.minimumBytesToFinish(s) + 3 <= budget {
                                allowRange(starts[i], starts[Int(ends[i])])
                                i = Int(ends[i])
                                continue
                            }
                        } else if node.kind == .freeText && parent.length == 0 && angleTrigger && classes[i].contains(.noAngle) {
                            allowRange(starts[i], starts[Int(ends[i])])
                            i = Int(ends[i])
                            continue
                        }
                        var s = parent
                        if g.step(&s, bytes[i]) {
                            states[d] = s
                            if starts[i] < starts[i + 1] && (!tight || g.minimumBytesToFinish(s) <= budget) {
                                allowRange(starts[i], starts[i + 1])
                            }
                            i += 1
                        } else {
                            i = Int(ends[i])
                        }
                    }
                }
            }
            return g.minimumBytesToFinish(start) == 0
        }
    }
}
