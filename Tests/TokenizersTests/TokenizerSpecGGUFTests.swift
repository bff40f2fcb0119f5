import Formats
import TestSupport
import Testing
import Tokenizers

@Suite struct TokenizerSpecGGUFTests {
    private func open(_ metadata: [(String, GGUFValue)]) throws -> GGUFFile {
        var writer = GGUFWriter()
        for (key, value) in metadata { writer.add(key, value) }
        let directory = try TemporaryDirectory()
        return try GGUFFile.open(path: try writer.write(in: directory))
    }

    @Test func `a SentencePiece GGUF gets llama.cpp defaults for absent keys`() throws {
        let file = try open([
            ("tokenizer.ggml.model", .string("llama")),
            ("tokenizer.ggml.tokens", .array(.string(["<s>", "</s>", "▁a"]))),
            ("tokenizer.ggml.scores", .array(.float32([0, 0, -1]))),
            ("tokenizer.ggml.token_type", .array(.int32([3, 3, 1]))),
            ("tokenizer.ggml.bos_token_id", .uint32(0)),
            ("tokenizer.ggml.eos_token_id", .uint32(1)),
            ("tokenizer.ggml.padding_token_id", .uint32(99)),  // out of range: ignored, as llama.cpp does
        ])
        let spec = try TokenizerSpec(gguf: file)
        #expect(spec.model == .sentencePiece && spec.pre == PreTokenizer.none)
        #expect(spec.addBOS && spec.addSpacePrefix && !spec.addEOS)
        #expect(spec.padId == nil && spec.bosId == 0)
        let tokenizer = try Tokenizer(spec: spec)
        #expect(tokenizer.encode("a", parseSpecial: false) == [0, 2])
        #expect(tokenizer.endOfGenerationIds == [1])
    }

    @Test func `a byte-level BPE GGUF reads merges and its pre-tokenizer`() throws {
        let alphabet = ByteLevelAlphabet.scalarOfByte.map { String(Character(Unicode.Scalar($0)!)) }
        let file = try open([
            ("tokenizer.ggml.model", .string("gpt2")),
            ("tokenizer.ggml.pre", .string("smollm")),
            ("tokenizer.ggml.tokens", .array(.string(alphabet + ["ab"]))),
            ("tokenizer.ggml.merges", .array(.string(["a b"]))),
            ("tokenizer.chat_template", .string("<|im_start|>")),
        ])
        let tokenizer = try Tokenizer(gguf: file)
        #expect(tokenizer.preTokenizer == .digitsThenGPT2 && !tokenizer.addsBOS)
        #expect(tokenizer.encode("ab1", parseSpecial: false) == [256, 0x31])
        #expect(tokenizer.chatTemplateText == "<|im_start|>")
    }

    @Test func `missing or unknown tokenizer metadata is a typed error`() throws {
        #expect(throws: TokenizerError.missingMetadata(key: "tokenizer.ggml.model")) {
            try TokenizerSpec(gguf: try open([("general.architecture", .string("llama"))]))
        }
        #expect(throws: TokenizerError.unsupportedPreTokenizer(name: "<missing>")) {
            try TokenizerSpec(gguf: try open([
                ("tokenizer.ggml.model", .string("gpt2")), ("tokenizer.ggml.tokens", .array(.string(["a"]))),
            ]))
        }
        #expect(throws: TokenizerError.missingMetadata(key: "tokenizer.ggml.tokens")) {
            try TokenizerSpec(gguf: try open([("tokenizer.ggml.model", .string("llama"))]))
        }
    }
}
