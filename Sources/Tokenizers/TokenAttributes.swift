/// Per-token attributes, from GGUF `tokenizer.ggml.token_type` (1 normal, 2 unknown, 3 control,
/// 4 user-defined, 5 unused, 6 byte), plus the control bit llama.cpp adds to end-of-turn texts.
package struct TokenAttributes: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let normal = TokenAttributes(rawValue: 1 << 0)
    package static let unknown = TokenAttributes(rawValue: 1 << 1)
    package static let control = TokenAttributes(rawValue: 1 << 2)
    package static let userDefined = TokenAttributes(rawValue: 1 << 3)
    package static let unused = TokenAttributes(rawValue: 1 << 4)
    package static let byte = TokenAttributes(rawValue: 1 << 5)

    /// Attributes of a GGUF token type; unknown type numbers get none (rendered as nothing).
    package init(ggufType: Int32) {
        switch ggufType {
        case 1: self = .normal
        case 2: self = .unknown
        case 3: self = .control
        case 4: self = .userDefined
        case 5: self = .unused
        case 6: self = .byte
        default: self = []
        }
    }

    /// Tokens whose text is matched as one token before normal tokenization.
    var isPartitionable: Bool { !isDisjoint(with: [.control, .userDefined, .unknown]) }
    /// Tokens whose text only appears when special tokens are parsed or rendered.
    var isSpecial: Bool { !isDisjoint(with: [.control, .unknown]) }
}
