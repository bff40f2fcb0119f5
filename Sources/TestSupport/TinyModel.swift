import Formats
import Tensor
import Tokenizers

/// Builds tiny, random-weight decoder GGUFs (llama, gemma3 or qwen2 layout) with a byte-level BPE
/// vocabulary, so engine tests run in milliseconds without real models. The weights are
/// random; the tests check the engine's mechanics (batching, caching, stopping, errors),
/// never the text's quality.
package struct TinyModel {
    package var architecture = "llama"
    package var layers = 2
    package var embedding = 32
    package var heads = 4
    package var kvHeads = 2
    package var feedForward = 64
    package var contextLength = 64
    package var seed: UInt64 = 7
    /// Override a tensor's type (the bytes are zero-filled for that type), for error tests.
    package var typeOverrides: [String: GGMLType] = [:]
    /// Extra merges (in GPT-2 byte-level symbols), e.g. ["h e", "Ġ t"].
    package var merges: [String] = ["h e", "l l", "Ġ t"]

    package init() {}

    /// Special tokens at the start of the vocabulary.
    package static let specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

    /// The vocabulary: specials, the 256 byte symbols, then one token per merge.
    package var tokens: [String] {
        Self.specials + (0..<256).map { Self.byteSymbol(UInt8($0)) } + merges.map { $0.replacingOccurrences(of: " ", with: "") }
    }

    /// GPT-2's printable stand-in for a byte (the byte-level BPE alphabet).
    package static func byteSymbol(_ b: UInt8) -> String {
        String(Unicode.Scalar(ByteLevelAlphabet.scalarOfByte[Int(b)])!)
    }

    package func writer() -> GGUFWriter {
        var w = GGUFWriter()
        var rng = SeededGenerator(seed: seed)
        let a = architecture
        let headDim = embedding / heads
        w.add("general.architecture", .string(a))
        w.add("\(a).block_count", .uint32(UInt32(layers)))
        w.add("\(a).embedding_length", .uint32(UInt32(embedding)))
        w.add("\(a).attention.head_count", .uint32(UInt32(heads)))
        w.add("\(a).attention.head_count_kv", .uint32(UInt32(kvHeads)))
        w.add("\(a).feed_forward_length", .uint32(UInt32(feedForward)))
        w.add("\(a).context_length", .uint32(UInt32(contextLength)))
        w.add("\(a).attention.layer_norm_rms_epsilon", .float32(1e-5))
        w.add("\(a).rope.freq_base", .float32(10_000))
        if a == "gemma3" {
            w.add("\(a).attention.key_length", .uint32(UInt32(headDim)))
            w.add("\(a).attention.sliding_window", .uint32(4))
        }
        let vocab = tokens
        w.add("tokenizer.ggml.model", .string("gpt2"))
        w.add("tokenizer.ggml.pre", .string("smollm"))
        w.add("tokenizer.ggml.tokens", .array(.string(vocab)))
        w.add("tokenizer.ggml.token_type", .array(.int32(vocab.indices.map { $0 < Self.specials.count ? 3 : 1 })))
        w.add("tokenizer.ggml.merges", .array(.string(merges)))
        w.add("tokenizer.ggml.bos_token_id", .uint32(1))
        w.add("tokenizer.ggml.eos_token_id", .uint32(2))
        w.add("tokenizer.chat_template", .string(Self.chatMLTemplate))

        func add(_ name: String, _ shape: [Int], norm: Bool = false) {
            if let t = typeOverrides[name] {
                let bytes = t.rowBytes(elements: shape[0]).map { $0 * shape.dropFirst().reduce(1, *) } ?? 0
                w.addTensor(name: name, type: t, shape: shape, data: [UInt8](repeating: 0, count: bytes))
                return
            }
            let n = shape.reduce(1, *)
            let scale = norm ? 0 : 1 / Float(shape[0]).squareRoot()
            let values = (0..<n).map { _ in (norm ? 1 : 0) + scale * Float(Double(rng.next() % 2001) / 1000 - 1) }
            w.addTensor(name: name, floats: values, shape: shape)
        }
        let d = embedding, q = heads * headDim, kv = kvHeads * headDim
        add("token_embd.weight", [d, vocab.count])
        add("output_norm.weight", [d], norm: true)
        for l in 0..<layers {
            let p = "blk.\(l)."
            add(p + "attn_norm.weight", [d], norm: true)
            add(p + "attn_q.weight", [d, q])
            add(p + "attn_k.weight", [d, kv])
            add(p + "attn_v.weight", [d, kv])
            add(p + "attn_output.weight", [q, d])
            add(p + "ffn_norm.weight", [d], norm: true)
            add(p + "ffn_gate.weight", [d, feedForward])
            add(p + "ffn_up.weight", [d, feedForward])
            add(p + "ffn_down.weight", [feedForward, d])
            if a == "qwen2" {
                add(p + "attn_q.bias", [q])
                add(p + "attn_k.bias", [kv])
                add(p + "attn_v.bias", [kv])
            }
            if a == "gemma3" {
                add(p + "attn_q_norm.weight", [headDim], norm: true)
                add(p + "attn_k_norm.weight", [headDim], norm: true)
                add(p + "post_attention_norm.weight", [d], norm: true)
                add(p + "post_ffw_norm.weight", [d], norm: true)
            }
        }
        return w
    }

    /// A ChatML template in the shape Hugging Face chat models ship.
    package static let chatMLTemplate = """
        {% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}
        """
}
