/// Which tokens end generation, derived from metadata ids and token texts the way llama.cpp
/// `llama_vocab::impl::load` does (its own comment calls this a text-based workaround until
/// converters write the ids).
///
/// The set is: the FIM pad/repo/file-separator tokens, every token whose text is in
/// `endOfGenerationTexts`, and the EOS, EOT and EOM ids. Texts that llama.cpp treats as end of
/// turn are also given the control attribute, as llama.cpp does, so they parse and render as
/// special tokens.
struct EndOfGeneration {
    private(set) var ids: Set<Int32> = []
    private(set) var endOfTurnId: Int32?

    static let endOfTurnTexts: Set<String> = [
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
        "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>",
    ]
    static let endOfMessageTexts: Set<String> = ["<|eom_id|>"]
    static let fillInMiddlePadTexts: Set<String> = ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"]
    static let fillInMiddleRepoTexts: Set<String> = ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"]
    static let fillInMiddleSeparatorTexts: Set<String> = ["<|file_sep|>"]
    static let endOfGenerationTexts: Set<String> = [
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
        "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
        "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
        "<｜end▁of▁sentence｜>", "[e~[",
    ]

    /// Derives the set; `attributes` gains the control bit on every token matched by text.
    init(tokens: [String], attributes: inout [TokenAttributes], eosId: Int32?, eotId: Int32?, eomId: Int32?) {
        // The lowest id wins when several texts of one role exist (llama.cpp's pick is hash order).
        func firstId(_ texts: Set<String>) -> Int32? {
            guard let id = tokens.firstIndex(where: texts.contains) else { return nil }
            attributes[id].insert(.control)
            return Int32(id)
        }
        endOfTurnId = eotId ?? firstId(Self.endOfTurnTexts)
        let endOfMessageId = eomId ?? firstId(Self.endOfMessageTexts)
        for fim in [Self.fillInMiddlePadTexts, Self.fillInMiddleRepoTexts, Self.fillInMiddleSeparatorTexts] {
            if let id = firstId(fim) { ids.insert(id) }
        }
        for (id, text) in tokens.enumerated() where Self.endOfGenerationTexts.contains(text) {
            ids.insert(Int32(id))
            attributes[id].insert(.control)
        }
        for id in [eosId, endOfTurnId, endOfMessageId].compactMap({ $0 }) { ids.insert(id) }
        // gpt-oss style vocabularies: "<|end|>" separates messages there, it does not end generation.
        let hasReturnAndCall = tokens.contains("<|return|>") && tokens.contains("<|call|>")
        let hasCallsAndFlush = tokens.contains("<|calls|>") && tokens.contains("<|flush|>")
        if hasReturnAndCall || hasCallsAndFlush, let end = tokens.firstIndex(of: "<|end|>") {
            ids.remove(Int32(end))
            attributes[end] = .userDefined
        }
        // Gemma 4 style vocabularies: "</s>" is an ordinary token when "<|tool_response>" exists.
        if tokens.contains("<|tool_response>"), let s = tokens.firstIndex(of: "</s>") {
            ids.remove(Int32(s))
            attributes[s] = .normal
        }
    }
}
