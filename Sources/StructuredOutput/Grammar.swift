/// A JSON Schema compiled to a byte-level automaton that recognises exactly the documents
/// constrained decoding may produce (compact or lightly spaced JSON, properties in schema
/// order, bounded strings and numbers).
///
/// The schema is compiled after its recursion is expanded to a bounded depth
/// (`JSONSchema.generationShape`), so every place a value can occur gets its own nodes and knows
/// statically where to go once the value is complete (`Node.next`). The only memory the
/// recogniser needs beyond the current node is a small per-lexeme counter (string characters,
/// number digits, whitespace, trigger progress) and the item counts of the open arrays, one
/// slot per level of array nesting. That makes `GrammarState` a small value that the token trie
/// walk copies freely.
package final class Grammar: Sendable {
    /// Node kinds; `string` and the number kinds keep their sub-state in `GrammarState.phase`.
    enum Kind: UInt8 {
        /// Consumes one byte through an edge, else hands the byte to `delegate`, else (when
        /// `terminal`) completes the value and hands the byte to `next`.
        case branch
        /// Inside a string after the opening quote.
        case string
        /// A number after its first byte (no exponent).
        case number
        /// An integer after its first byte.
        case integer
        /// Any text until `trigger` appears, then `next` (a tool call after `<tool_call>`).
        case freeText
        /// The document is complete; nothing may follow.
        case done
    }

    struct Flags: OptionSet {
        let rawValue: UInt8
        /// Up to `maxWhitespace` spaces or newlines may come before the next byte.
        static let whitespace = Flags(rawValue: 1)
        /// The value may end here; an unmatched byte belongs to `next`.
        static let terminal = Flags(rawValue: 2)
        /// Entering the node counts one more array item in `slot` (an array's after-item node).
        static let countItem = Flags(rawValue: 4)
        /// Entering the node resets the item count in `slot` (an array's after-`[` node), and the
        /// names of extra members written there (`GrammarConstraint`).
        static let resetCount = Flags(rawValue: 8)
        /// Entering the node (after the opening quote) starts the name of an extra member.
        static let keyStart = Flags(rawValue: 16)
        /// Entering the node (after the closing quote) ends the name of an extra member, which
        /// must differ from the names already written in the object counted in `slot`: a regular
        /// grammar cannot remember them, so `GrammarConstraint` does.
        static let keyEnd = Flags(rawValue: 32)
    }

    /// Which array count an edge depends on (the current node's `slot`, `low`, `high`).
    enum Guard: UInt8 {
        case none
        /// count < maxItems (a `,` before another item).
        case belowMax
        /// count ≥ minItems (a closing `]`).
        case atLeastMin
    }

    struct Edge {
        var low: UInt8
        var high: UInt8
        var condition = Guard.none
        /// The sub-state of the target (string and number kinds).
        var phase: UInt8 = 0
        var target: Int32
    }

    struct Node {
        var kind = Kind.branch
        var flags = Flags()
        /// Array nesting level whose count this node uses.
        var slot: UInt8 = 0
        /// string: minLength; array nodes: minItems; number: max fraction digits.
        var low: UInt16 = 0
        /// string: maxLength; array nodes: maxItems; number: max integer digits.
        var high: UInt16 = 0
        var edgeStart: Int32 = 0
        var edgeCount: Int32 = 0
        var delegate: Int32 = -1
        /// Entered when the value this node belongs to completes.
        var next: Int32 = -1
        /// The node entered when the innermost value containing this node completes (-1: the
        /// document ends here). Usually equal to `next`; the chain of exits gives the cost to
        /// finish the document.
        var exit: Int32 = -1
        /// Fewest bytes from entering this node to entering `exit` (array after-item and string
        /// nodes compute theirs from the state instead).
        var cost: Int32 = 0
        /// Array nodes: bytes of the shortest item.
        var itemCost: Int32 = 0
    }

    /// Limits that keep a small model from wandering: bounded whitespace, strings and numbers.
    package struct Options: Sendable, Equatable {
        /// Spaces or newlines allowed between two tokens of JSON (0 = compact output only).
        package var maxWhitespace = 0
        /// Characters of a string whose schema sets no maxLength.
        package var maxStringLength = 256
        package var maxIntegerDigits = 12
        package var maxFractionDigits = 6
        /// Times a recursive `$ref` is expanded inside itself: a generated tree has at most this
        /// many levels below its outermost node.
        package var maxRecursionDepth = 4
        /// Levels of arrays and objects inside a value the schema leaves open (`{}`, `true`).
        package var maxAnyDepth = 2
        /// Characters of a member name that `additionalProperties` lets the model choose.
        package var maxKeyLength = 64
        package init() {}
    }

    /// What comes before the JSON document.
    package enum Prefix: Sendable, Equatable {
        case none
        /// This exact text, then the document (a forced tool call).
        case literal(String)
        /// Free text; the document starts only after `trigger` appears (an optional tool call),
        /// and the text may end anywhere before that.
        case freeTextUntil(String)
    }

    let nodes: [Node]
    let edges: [Edge]
    /// (trigger.count, 256) next match length of `trigger` after a byte, for `freeText`.
    let triggerTable: [UInt8]
    let triggerLength: Int
    let triggerFirstByte: UInt8?
    let maxWhitespace: UInt8
    /// An upper bound of `minimumBytesToFinish` over every state: below this many tokens of
    /// budget, each candidate token's state must be checked against the budget.
    let costBound: Int
    package let initialState: GrammarState
    package let options: Options

    /// The index of the `done` node.
    static let doneNode: Int32 = 0
    /// The node after the document's value: one space or newline may still end the document,
    /// which is how a model says a top-level number is finished (nothing else can follow).
    static let trailerNode: Int32 = 1

    init(nodes: [Node], edges: [Edge], trigger: [UInt8], start: Int32, options: Options) {
        self.nodes = nodes
        self.edges = edges
        self.options = options
        self.maxWhitespace = UInt8(clamping: options.maxWhitespace)
        self.triggerLength = trigger.count
        self.triggerFirstByte = trigger.first
        self.triggerTable = Self.matchTable(trigger)
        self.initialState = GrammarState(node: start)
        self.costBound = Self.costBound(nodes)
    }

    /// Knuth–Morris–Pratt as a table: entry (m, b) is the length of the longest prefix of
    /// `trigger` that ends the text after m matched bytes and then b.
    static func matchTable(_ trigger: [UInt8]) -> [UInt8] {
        guard !trigger.isEmpty else { return [] }
        var table = [UInt8](repeating: 0, count: trigger.count * 256)
        for m in 0..<trigger.count {
            for b in 0..<256 {
                var k = m + 1
                let text = Array(trigger[0..<m]) + [UInt8(b)]
                while k > 0 && Array(text.suffix(k)) != Array(trigger.prefix(k)) { k -= 1 }
                table[m * 256 + b] = UInt8(k)
            }
        }
        return table
    }

    /// Runs `body` with a stepper over this grammar's tables (no retain/release in its loops).
    func withStepper<R>(_ body: (GrammarStepper) throws(EngineError) -> R) throws(EngineError) -> R {
        let result: Result<R, EngineError> = nodes.withUnsafeBufferPointer { n in
            edges.withUnsafeBufferPointer { e in
                triggerTable.withUnsafeBufferPointer { t in
                    let stepper = GrammarStepper(nodes: n, edges: e, triggerTable: t, triggerLength: triggerLength,
                                                 maxWhitespace: maxWhitespace)
                    do throws(EngineError) { return .success(try body(stepper)) } catch { return .failure(error) }
                }
            }
        }
        return try result.get()
    }
}

/// The recogniser's position: a node, its sub-state, the current lexeme's counter and the
/// item counts of open arrays.
package struct GrammarState: Sendable, Equatable {
    var node: Int32
    /// string: 0 body, 1 after `\`, 2–6 `\u` hex digits, 7–13 inside a UTF-8 sequence;
    /// number: 1 after `-`, 2 after a leading `0`, 3 integer digits, 4 after `.`, 5 fraction.
    var phase: UInt8 = 0
    var whitespace: UInt8 = 0
    /// Characters of a string, extra digits of a number part, matched trigger bytes.
    var length: UInt16 = 0
    /// Completed items of the open array at each nesting level.
    var counts = SIMD8<UInt16>()

    init(node: Int32) { self.node = node }

    /// True when the document is complete and nothing but a final space or newline may follow.
    package var isDone: Bool { node == Grammar.doneNode || node == Grammar.trailerNode }
}

extension Grammar {
    /// Whether `text` is a complete document of the grammar (the state after it may end).
    package func recognizes(_ text: String) -> Bool {
        guard let s = state(after: Array(text.utf8)) else { return false }
        return (try? withStepper { $0.minimumBytesToFinish(s) == 0 }) ?? false
    }

    /// The state after `bytes` from the start, or nil when no document begins so.
    package func state(after bytes: [UInt8]) -> GrammarState? {
        try? withStepper { g in
            var s = initialState
            for b in bytes where !g.step(&s, b) { return nil }
            return s
        }
    }

    /// The state after one more byte, or nil when no document continues so.
    package func state(_ state: GrammarState, after byte: UInt8) -> GrammarState? {
        try? withStepper { g in
            var s = state
            return g.step(&s, byte) ? s : nil
        }
    }

    /// Fewest bytes that complete a document from `state` (0: it may end there).
    package func minimumBytesToFinish(_ state: GrammarState) -> Int {
        (try? withStepper { $0.minimumBytesToFinish(state) }) ?? 0
    }
}
