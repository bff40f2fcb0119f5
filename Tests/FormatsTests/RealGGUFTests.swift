import Formats
import Tensor
import Testing
import TestSupport

/// Parses the real model files, found under `TestModels.searchRoots` (`ONDEVICE_TEST_MODELS`,
/// then the model store `scripts/setup.sh all` fills). A missing model is a failure, not a skip.
@Suite struct RealGGUFTests {
    static func typeCounts(_ file: GGUFFile) -> [GGMLType: Int] {
        file.tensorInfos.reduce(into: [:]) { $0[$1.type, default: 0] += 1 }
    }

    /// Every tensor is viewable, and the tensors tile the data section exactly up to the file end.
    static func checkTensorsTile(_ file: GGUFFile) throws {
        var end = file.dataOffset
        for info in file.tensorInfos.sorted(by: { $0.offset < $1.offset }) {
            let view = try file.tensor(info.name)
            #expect(view.byteCount == info.byteCount && view.shape == info.shape && view.owner === file.region)
            #expect(view.byteCount == view.rowBytes * view.rowCount, "\(info.name)")
            #expect(info.offset >= end, "\(info.name) overlaps its predecessor")
            end = info.offset + info.byteCount
        }
        #expect(end == file.region.count)
    }

    @Test func `SmolLM2 135M parses with its llama metadata, vocab and 272 tensors`() throws {
        let file = try GGUFFile.open(path: #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh all"))
        #expect(file.version == 3 && file.alignment == 32)
        #expect(file.architecture == "llama")
        #expect(file.int("llama.block_count") == 30 && file.int("llama.embedding_length") == 576)
        #expect(file.int("llama.attention.head_count") == 9 && file.int("llama.attention.head_count_kv") == 3)
        #expect(file.int("llama.feed_forward_length") == 1536 && file.float("llama.rope.freq_base") == 100_000)
        #expect(file.string("tokenizer.ggml.model") == "gpt2" && file.string("tokenizer.ggml.pre") == "smollm")
        let tokens = try file.requireStringArray("tokenizer.ggml.tokens")
        #expect(tokens.count == 49152 && tokens[0] == "<|endoftext|>" && tokens[1] == "<|im_start|>")
        #expect(file.intArray("tokenizer.ggml.token_type")?.count == 49152)
        #expect(file.stringArray("tokenizer.ggml.merges")?.count == 48900)
        #expect(file.string("tokenizer.chat_template")?.contains("<|im_start|>") == true)

        #expect(file.tensorInfos.count == 272)
        #expect(Self.typeCounts(file) == [.q4_1: 210, .q8_0: 1, .f32: 61])
        let embedding = try file.tensor("token_embd.weight")
        #expect(embedding.type == .q8_0 && embedding.shape == [576, 49152])
        try Self.checkTensorsTile(file)
    }

    @Test func `Gemma 3 270M parses with its 262144-token vocabulary and 236 tensors`() throws {
        let file = try GGUFFile.open(path: #require(TestModels.path(TestModels.gemma3), "Gemma 3 not installed: run scripts/setup.sh all"))
        #expect(file.version == 3 && file.architecture == "gemma3")
        #expect(file.int("gemma3.block_count") == 18 && file.int("gemma3.embedding_length") == 640)
        #expect(file.int("gemma3.attention.head_count") == 4 && file.int("gemma3.attention.head_count_kv") == 1)
        #expect(file.int("gemma3.attention.key_length") == 256 && file.int("gemma3.attention.sliding_window") == 512)
        #expect(file.float("gemma3.rope.freq_base") == 1_000_000)
        let tokens = try file.requireStringArray("tokenizer.ggml.tokens")
        #expect(tokens.count == 262_144 && tokens[0..<4] == ["<pad>", "<eos>", "<bos>", "<unk>"])
        #expect(file.floatArray("tokenizer.ggml.scores")?.count == 262_144)
        #expect(file.intArray("tokenizer.ggml.token_type")?.count == 262_144)
        #expect(file.int("tokenizer.ggml.bos_token_id") == 2 && file.int("tokenizer.ggml.eos_token_id") == 1)

        #expect(file.tensorInfos.count == 236)
        #expect(Self.typeCounts(file) == [.q4_K: 27, .q5_0: 81, .q6_K: 9, .q8_0: 10, .f32: 109])
        let embedding = try file.tensor("token_embd.weight")
        #expect(embedding.type == .q8_0 && embedding.shape == [640, 262_144])
        try Self.checkTensorsTile(file)
    }
}
