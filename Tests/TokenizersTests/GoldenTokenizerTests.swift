import TestSupport
import Testing
import Tokenizers

/// llama.cpp reference ids for 62 strings per model (golden/llm/tokenizer-*.jsonl), with the
/// real GGUF vocabularies found through `TestModels.searchRoots`. A missing fixture or model is a
/// failure (run scripts/setup.sh all), never a skip.
@Suite struct GoldenTokenizerTests {
    @Test(arguments: [("tokenizer-smollm2.jsonl", TestModels.smolLM2), ("tokenizer-gemma3.jsonl", TestModels.gemma3),
                      ("tokenizer-qwen2.jsonl", TestModels.qwen25)])
    func `the fixtures and vocabularies are present`(fixture: String, model: String) throws {
        #expect(try Golden.load(fixture, as: TokenizerFixture.self).count == 62)
        _ = try #require(TestModels.path(model), "\(model) is not installed: run scripts/setup.sh all")
    }

    @Test(arguments: Golden.smolLM2Strings)
    func `SmolLM2 tokenizes every fixture string exactly as llama.cpp`(_ fixture: TokenizerFixture) throws {
        check(fixture, try #require(Golden.smolLM2, "SmolLM2 is not installed"))
    }

    @Test(arguments: Golden.gemma3Strings)
    func `Gemma 3 tokenizes every fixture string exactly as llama.cpp`(_ fixture: TokenizerFixture) throws {
        check(fixture, try #require(Golden.gemma3, "Gemma 3 is not installed"))
    }

    @Test(arguments: Golden.qwen25Strings)
    func `Qwen 2.5 tokenizes every fixture string exactly as llama.cpp`(_ fixture: TokenizerFixture) throws {
        check(fixture, try #require(Golden.qwen25, "Qwen 2.5 is not installed"))
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
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `SmolLM2 special ids and end-of-generation set match llama.cpp`() throws {
        let tokenizer = try #require(Golden.smolLM2)
        #expect(tokenizer.vocabularySize == 49_152)
        #expect(tokenizer.bosId == 1)
        #expect(tokenizer.eosId == 2)
        #expect(tokenizer.addsBOS == false)
        #expect(tokenizer.endOfGenerationIds == [0, 2, 4])
        #expect(tokenizer.model == .bytePairEncoding)
        #expect(tokenizer.preTokenizer == .digitsThenGPT2)
    }

    @Test func `Gemma 3 special ids and end-of-generation set match llama.cpp`() throws {
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
