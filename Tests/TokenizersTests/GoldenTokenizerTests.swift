import Testing
import Tokenizers

/// llama.cpp reference ids for 62 strings per model (golden/llm/tokenizer-*.jsonl), with the
/// real GGUF vocabularies found through `$ONDEVICE_TEST_MODELS`.
@Suite struct GoldenTokenizerTests {
    static let hasSmolLM2 = Golden.smolLM2 != nil && !Golden.smolLM2Strings.isEmpty
    static let hasGemma3 = Golden.gemma3 != nil && !Golden.gemma3Strings.isEmpty

    @Test(.enabled(if: hasSmolLM2), arguments: Golden.smolLM2Strings)
    func `SmolLM2 tokenizes every fixture string exactly as llama.cpp`(_ fixture: TokenizerFixture) throws {
        let tokenizer = try #require(Golden.smolLM2)
        check(fixture, tokenizer)
    }

    @Test(.enabled(if: hasGemma3), arguments: Golden.gemma3Strings)
    func `Gemma 3 tokenizes every fixture string exactly as llama.cpp`(_ fixture: TokenizerFixture) throws {
        let tokenizer = try #require(Golden.gemma3)
        check(fixture, tokenizer)
    }

    // Qwen's fixtures and model are required, not optional: a missing file fails here (run
    // scripts/setup.sh qwen2.5-coder-0.5b-instruct-q4_k_m) instead of skipping into a pass.
    @Test func `the Qwen 2.5 fixtures and vocabulary are present`() throws {
        #expect(Golden.qwen25Strings.count == 62)
        _ = try #require(Golden.qwen25, "qwen2.5-coder-0.5b-instruct-q4_k_m is not installed")
    }

    @Test(arguments: Golden.qwen25Strings)
    func `Qwen 2.5 tokenizes every fixture string exactly as llama.cpp`(_ fixture: TokenizerFixture) throws {
        let tokenizer = try #require(Golden.qwen25)
        check(fixture, tokenizer)
    }

    @Test func `Qwen 2.5 special ids and end-of-generation set match llama.cpp`() throws {
        let tokenizer = try #require(Golden.qwen25)
        #expect(tokenizer.vocabularySize == 151_936)
        #expect(tokenizer.eosId == 151_645)
        #expect(tokenizer.addsBOS == false)
        #expect(tokenizer.tokenId("<|im_start|>") == 151_644)
        // llama.cpp also ends on `</s>` (128247), an ordinary token in the file that it makes a
        // control token because of its text.
        #expect(tokenizer.endOfGenerationIds == [128_247, 151_643, 151_645, 151_662, 151_663, 151_664])
        #expect(tokenizer.model == .bytePairEncoding)
    }

    private func check(_ fixture: TokenizerFixture, _ tokenizer: Tokenizer) {
        #expect(tokenizer.encode(fixture.text, addBOS: false, parseSpecial: false) == fixture.ids_plain)
        #expect(tokenizer.encode(fixture.text, addBOS: false, parseSpecial: true) == fixture.ids_special)
        #expect(tokenizer.encode(fixture.text, parseSpecial: true) == fixture.ids_bos_special)
        #expect(fixture.ids_special.map { tokenizer.tokenText($0) ?? "?" } == fixture.tokens_special)
        if fixture.detok_plain_roundtrip {
            let bytes = fixture.ids_plain.flatMap { tokenizer.pieceBytes($0, renderSpecial: true) }
            #expect(bytes == Array(fixture.text.utf8))
        }
    }

    @Test(.enabled(if: Golden.smolLM2 != nil))
    func `SmolLM2 special ids and end-of-generation set match llama.cpp`() throws {
        let tokenizer = try #require(Golden.smolLM2)
        #expect(tokenizer.vocabularySize == 49_152)
        #expect(tokenizer.bosId == 1)
        #expect(tokenizer.eosId == 2)
        #expect(tokenizer.addsBOS == false)
        #expect(tokenizer.endOfGenerationIds == [0, 2, 4])
        #expect(tokenizer.model == .bytePairEncoding)
        #expect(tokenizer.preTokenizer == .digitsThenGPT2)
    }

    @Test(.enabled(if: Golden.gemma3 != nil))
    func `Gemma 3 special ids and end-of-generation set match llama.cpp`() throws {
        let tokenizer = try #require(Golden.gemma3)
        #expect(tokenizer.vocabularySize == 262_144)
        #expect(tokenizer.bosId == 2)
        #expect(tokenizer.eosId == 1)
        #expect(tokenizer.addsBOS == true)
        #expect(tokenizer.addsSpacePrefix == false)
        #expect(tokenizer.endOfGenerationIds == [1, 106, 212])
        #expect(tokenizer.model == .sentencePiece)
        #expect(tokenizer.tokenId("<start_of_turn>") == 105)
    }
}
