import Testing
import Tokenizers

@Suite struct ChatTemplateTests {
    static let smolTemplate = """
        {% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system
        You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>
        ' }}{% endif %}{{'<|im_start|>' + message['role'] + '
        ' + message['content'] + '<|im_end|>' + '
        '}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant
        ' }}{% endif %}
        """

    @Test func `ChatML takes its default system prompt from the template text`() throws {
        let template = try ChatTemplate(metadataTemplate: Self.smolTemplate)
        #expect(template.family == .chatML(defaultSystemPrompt: "You are a helpful AI assistant named SmolLM, trained by Hugging Face"))
        let text = try template.render(messages: [ChatMessage(role: .user, content: "Hi")], addGenerationPrompt: true)
        #expect(text == "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    }

    @Test func `ChatML keeps an explicit system message and adds no default`() throws {
        let template = try ChatTemplate(metadataTemplate: Self.smolTemplate)
        let text = try template.render(
            messages: [ChatMessage(role: .system, content: "Be brief."), ChatMessage(role: .user, content: "Hi")],
            addGenerationPrompt: false)
        #expect(text == "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n")
        let bare = try ChatTemplate(metadataTemplate: "{% for m in messages %}{{'<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n'}}{% endfor %}")
        #expect(bare.family == .chatML(defaultSystemPrompt: nil))
    }

    @Test func `Gemma renders model turns and folds the system message into the first user turn`() throws {
        let template = try ChatTemplate(metadataTemplate: "{{ bos_token }}{% for m in messages %}<start_of_turn>...")
        let text = try template.render(
            messages: [ChatMessage(role: .system, content: "S"), ChatMessage(role: .user, content: "Q"),
                       ChatMessage(role: .assistant, content: "A")],
            addGenerationPrompt: true)
        #expect(text == "<start_of_turn>user\nS\n\nQ<end_of_turn>\n<start_of_turn>model\nA<end_of_turn>\n<start_of_turn>model\n")
        #expect(throws: TokenizerError.unsupportedRole(.tool)) {
            try template.render(messages: [ChatMessage(role: .tool, content: "x")], addGenerationPrompt: false)
        }
    }

    @Test func `a model without a template or with an unknown one is a typed error`() {
        #expect(throws: TokenizerError.noChatTemplate) { try ChatTemplate(metadataTemplate: nil) }
        #expect(throws: TokenizerError.unsupportedChatTemplate) { try ChatTemplate(metadataTemplate: "[INST] {{ x }}") }
    }

    @Test(.enabled(if: Golden.smolLM2 != nil && !Golden.smolLM2Prompts.isEmpty), arguments: Golden.smolLM2Prompts)
    func `SmolLM2 prompts render and tokenize exactly as the golden greedy runs`(_ fixture: GreedyPromptFixture) throws {
        let tokenizer = try #require(Golden.smolLM2)
        let template = try ChatTemplate(metadataTemplate: tokenizer.chatTemplateText)
        let messages = try fixture.messages.map { message in
            ChatMessage(role: try #require(ChatMessage.Role(rawValue: message.role)), content: message.content)
        }
        let prompt = try template.render(messages: messages, addGenerationPrompt: true)
        #expect(prompt == fixture.prompt)
        #expect(tokenizer.encode(prompt, addBOS: false, parseSpecial: true) == fixture.prompt_ids)
    }
}
