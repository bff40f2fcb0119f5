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
    private var depthNames: [(from: Int16, cleared: UInt8, byte: UInt8)]  // (longest token + 1) scratch of `mask`
    private var names = MemberNames()
    /// Whether a token must leave room to finish the document within the remaining budget (the
    /// default). Off where the budget cannot hold even the shortest document: the output then
    /// follows the grammar until it completes or the budget runs out (finish reason length), as
    /// a reply cut by `max_tokens` does.
    package var finishesWithinBudget = true

    package init(grammar: Grammar, tokenizer: Tokenizer) {
        self.grammar = grammar
        self.tokenizer = tokenizer
        self.trie = TokenTrie.shared(for: tokenizer)
        self.state = grammar.initialState
        self.allowed = [Bool](repeating: false, count: trie.vocabularySize)
        self.depthStates = [GrammarState](repeating: grammar.initialState, count: trie.maxTokenLength + 1)
        self.depthNames = [(Int16, UInt8, UInt8)](repeating: (-1, 0, 0), count: trie.maxTokenLength + 1)
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
        let budget = finishesWithinBudget ? remaining - 1 : Int.max
        return (try? grammar.withStepper { g in
            if tokenizer.isEndOfGeneration(id) { return g.minimumBytesToFinish(state) == 0 }
            let piece = tokenizer.pieceBytes(id, renderSpecial: false)
            guard !piece.isEmpty else { return false }
            var s = state
            // Where the tail of an extra member's name starts in the piece (nil outside a name),
            // whether the name began before the piece, and the slots whose object restarts in it.
            var from: Int? = names.current == nil ? nil : piece.startIndex
            var withCurrent = names.current != nil
            var cleared: UInt8 = 0
            for k in piece.indices {
                let before = s.node
                guard g.step(&s, piece[k]) else { return false }
                guard s.node != before else { continue }
                let n = g.nodes[Int(s.node)]
                if n.flags.contains(.resetCount) { cleared |= 1 << n.slot }
                if n.flags.contains(.keyStart) {
                    from = k + 1
                    withCurrent = false
                } else if n.flags.contains(.keyEnd), let start = from {
                    if cleared & (1 << n.slot) == 0 && names.contains(slot: n.slot, withCurrent: withCurrent, tail: piece[start...k]) {
                        return false
                    }
                    from = nil
                }
            }
            return budget >= grammar.costBound || g.minimumBytesToFinish(s) <= budget
        }) ?? false
    }

    package func accept(_ id: Int32) throws(EngineError) {
        if tokenizer.isEndOfGeneration(id) { return }
        let piece = tokenizer.pieceBytes(id, renderSpecial: false)
        var followed = names
        let next: GrammarState? = try grammar.withStepper { g in
            var s = state
            for b in piece {
                let before = s.node
                guard g.step(&s, b) else { return nil }
                followed.follow(b, entered: s.node != before ? g.nodes[Int(s.node)] : nil)
            }
            return s
        }
        guard let next, !piece.isEmpty else { throw .noAllowedToken(afterTokens: acceptedTokens) }
        state = next
        names = followed
        acceptedTokens += 1
    }

    package func mask(_ logits: UnsafeMutablePointer<Float>, count: Int, remaining: Int) throws(EngineError) {
        let clock = ContinuousClock()
        let started = clock.now
        defer {
            masksComputed += 1
            maskSeconds += (clock.now - started).seconds
        }
        let budget = finishesWithinBudget ? remaining - 1 : Int.max
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
                    depthNames.withUnsafeMutableBufferPointer { nameAt in
                        let pathBytes = UnsafeBufferPointer(nameAt)  // a view the tail below can capture
                        allow.update(repeating: false)
                        let bytes = trie.bytes, depth = trie.depth, ends = trie.subtreeEnd, deepest = trie.deepest
                        let classes = trie.classes, stringSafe = trie.stringSafe, starts = trie.tokenStart, tokens = trie.tokens
                        func allowRange(_ from: Int32, _ to: Int32) {
                            for k in Int(from)..<Int(to) { allow[Int(tokens[k])] = true }
                        }
                        states[0] = start
                        // As in `allows`: where an extra member's name began (depth of its first byte
                        // in this token, 1 when it began before), and the slots restarted on the path.
                        nameAt[0] = (names.current == nil ? -1 : 1, 0, 0)
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
                                var name = nameAt[d - 1]
                                name.byte = bytes[i]
                                nameAt[d] = name
                                if s.node != parent.node {
                                    let entered = g.nodes[Int(s.node)]
                                    if entered.flags.contains(.resetCount) { name.cleared |= 1 << entered.slot }
                                    if entered.flags.contains(.keyStart) {
                                        name.from = Int16(d + 1)
                                    } else if entered.flags.contains(.keyEnd) && name.from >= 0 {
                                        if name.cleared & (1 << entered.slot) == 0
                                            && names.contains(slot: entered.slot, withCurrent: name.from == 1,
                                                              tail: (Int(name.from)...d).lazy.map { pathBytes[$0].byte }) {
                                            i = Int(ends[i])
                                            continue
                                        }
                                        name.from = -1
                                    }
                                }
                                states[d] = s
                                nameAt[d] = name
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
            }
            return g.minimumBytesToFinish(start) == 0
        }
    }
}
