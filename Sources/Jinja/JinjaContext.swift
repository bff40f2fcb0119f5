/// The variables a template renders with. Strings inside ordinary variables are `.data`;
/// variables named in `trustedNames` (the tokenizer's own special tokens, such as
/// `bos_token`) are treated as template text, so their markers tokenize as control tokens.
package struct JinjaContext: Sendable, Equatable {
    /// Variables by name, in the order given.
    package var variables: JinjaObject
    /// Variables whose strings count as template text.
    package var trustedNames: Set<String>

    /// A context of `variables`; the names in `trusted` are template text.
    package init(_ variables: JinjaObject = [:], trusted: Set<String> = []) {
        self.variables = variables
        self.trustedNames = trusted
    }

    /// The variables transformers' `apply_chat_template` passes: `messages`, `tools` and
    /// `documents` (`None` when absent, so `tools is defined` holds as it does there),
    /// `add_generation_prompt`, and the special tokens, which are trusted. `extra` adds
    /// template kwargs (data) after them.
    package init(messages: [JinjaValue], tools: [JinjaValue]? = nil, documents: [JinjaValue]? = nil,
                 addGenerationPrompt: Bool, bosToken: String? = nil, eosToken: String? = nil,
                 extra: JinjaObject = [:]) {
        var variables: JinjaObject = [
            "messages": .array(messages),
            "tools": tools.map { .array($0) } ?? .none,
            "documents": documents.map { .array($0) } ?? .none,
            "add_generation_prompt": .bool(addGenerationPrompt),
        ]
        var trusted: Set<String> = []
        if let bosToken { variables["bos_token"] = .string(bosToken); trusted.insert("bos_token") }
        if let eosToken { variables["eos_token"] = .string(eosToken); trusted.insert("eos_token") }
        for (key, value) in extra.entries { variables[key] = value }
        self.init(variables, trusted: trusted)
    }

    /// The variable `name`.
    package subscript(name: String) -> JinjaValue? {
        get { variables[name] }
        set { variables[name] = newValue }
    }
}
