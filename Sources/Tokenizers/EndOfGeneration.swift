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
    /// Texts are looked up as exact bytes in `table`, as llama.cpp compares them.
    init(table: TokenTable, attributes: inout [TokenAttributes], eosId: Int32?, eotId: Int32?, eomId: Int32?) {
        func lookUp(_ texts: Set<String>) -> [Int32] {
            texts.compactMap { table.id(of: Array($0.utf8)) }.sorted()
        }
        // The lowest id wins when several texts of one role exist (llama.cpp's pick is hash order).
        func firstId(_ texts: Set<String>) -> Int32? {
            guard let id = lookUp(texts).first else { return nil }
            attributes[Int(id)].insert(.control)
            return id
        }
        endOfTurnId = eotId ?? firstId(Self.endOfTurnTexts)
        let endOfMessageId = eomId ?? firstId(Self.endOfMessageTexts)
        for fim in [Self.fillInMiddlePadTexts, Self.fillInMiddleRepoTexts, Self.fillInMiddleSeparatorTexts] {
            if let id = firstId(fim) { self.ids.insert(id) }
        }
        for id in lookUp(Self.endOfGenerationTexts) {
            self.ids.insert(id)
            attributes[Int(id)].insert(.control)
        }
        for id in [eosId, endOfTurnId, endOfMessageId].compactMap({ $0 }) { self.ids.insert(id) }
        func has(_ text: String) -> Int32? { table.id(of: Array(text.utf8)) }
        // gpt-oss style vocabularies: "<|end|>" separates messages there, it does not end generation.
        let hasReturnAndCall = has("<|return|>") != nil && has("<|call|>") != nil
        let hasCallsAndFlush = has("<|calls|>") != nil && has("<|flush|>") != nil
        if hasReturnAndCall || hasCallsAndFlush, let end = has("<|end|>") {
            self.ids.remove(end)
            attributes[Int(end)] = .userDefined
        }
        // Gemma 4 style vocabularies: "</s>" is an ordinary token when "<|tool_response>" exists.
        if has("<|tool_response>") != nil, let s = has("</s>") {
            self.ids.remove(s)
            attributes[Int(s)] = .normal
        }
    }
}
