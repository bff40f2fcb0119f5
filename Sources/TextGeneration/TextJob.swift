import StructuredOutput
import Tokenizers
import Tools

/// What the model is given, before it is turned into token ids by `TextCore` — the one place
/// where prompts are rendered for every door (SDK, CLI, server).
package enum TextInput: Sendable, Equatable {
    /// A conversation, rendered with the model's chat template (a model without one is
    /// `EngineError.noChatTemplate`).
    case chat([ChatMessage])
    /// One user turn, after an optional system message, in the model's chat template; for a
    /// model without a template (a base model), the text as is.
    case user(String, system: String? = nil)
    /// Text as is, BOS as the model's metadata says. Control-token text in it stays text unless
    /// `parseSpecial` is set for a hand-written prompt in the model's own format.
    case raw(String, parseSpecial: Bool = false)
    /// Token ids as is (they must belong to the model).
    case tokens([Int32])
}

/// The shape the reply must take.
package enum TextOutput: Sendable {
    /// Free text.
    case text
    /// A JSON document valid against the schema: every token is constrained by its grammar and
    /// stop strings are ignored (they could cut the document).
    case schema(JSONSchema)
    /// The reply may open a call to one of the job's tools (`required`: it must be one); the call
    /// is constrained to the tools' names and argument schemas so it always parses.
    case toolCall(required: Bool)
}

/// What to do with a prompt longer than the context allows.
package enum TextOverflow: Sendable, Equatable {
    /// `EngineError.contextOverflow` (never a silent truncation).
    case refuse
    /// Keep the prompt's end, so the newest text is seen.
    case keepEnd
}

/// One text request as every door states it: the input, the reply's shape, the tools on offer,
/// the generation options (whose defaults are the one set every door shares) and the overflow
/// policy.
package struct TextJob: Sendable {
    package var input: TextInput
    package var output: TextOutput
    /// Tools the conversation offers. A template that lays tools out gets their definitions on
    /// every turn; for others they are described in the system message. With `.text` output a
    /// reply stops where it would open a call.
    package var tools: ToolRegistry
    package var options: GenerationOptions
    package var overflow: TextOverflow
    /// Whitespace and other freedoms a constrained output allows (tool calls always allow one
    /// whitespace, as Hermes examples write `<tool_call>\n{…}`).
    package var grammarOptions = Grammar.Options()
    /// With `.toolCall` output, the one tool a call may name (OpenAI's `tool_choice` naming a
    /// function); the model is still told about all of `tools`. nil: any of them.
    package var callableTool: String?
    /// With `.toolCall` output, the most calls one reply may make. After each call the model
    /// chooses between ending the turn and another call (see `TextCore+Calls.swift`); 1, the
    /// default, ends the reply with its first call.
    package var maxCalls = 1

    package init(_ input: TextInput, output: TextOutput = .text, tools: ToolRegistry = ToolRegistry(),
                 options: GenerationOptions = GenerationOptions(), overflow: TextOverflow = .refuse) {
        self.input = input
        self.output = output
        self.tools = tools
        self.options = options
        self.overflow = overflow
    }
}

/// A job made concrete for one model: its prompt ids and the options it runs with.
package struct TextPlan: Sendable {
    package var prompt: [Int32]
    package var options: GenerationOptions
    package var output: TextOutput
    package var tools: ToolRegistry
    /// The tools a call is constrained to: `tools`, or only the job's `callableTool`.
    package var callTools: ToolRegistry
    package var grammarOptions: Grammar.Options
    /// The job's `maxCalls`.
    package var maxCalls = 1
    /// Prompt tokens dropped from the front under `.keepEnd`.
    package var droppedPromptTokens = 0
}

/// What one model call produced.
package struct TextOutcome: Sendable, Equatable {
    /// Token ids, the raw generated text (a call's own text included) and metrics.
    package var result: GenerationResult
    /// The visible reply: the text before any call; for a schema, the document.
    package var content: String
    /// The calls the reply made (`.toolCall` output only).
    package var calls: [ToolCallParser.Parsed]
    /// When `GenerationOptions.logprobs` was set: the figures of the tokens of the visible reply
    /// (the text `onText` received), in order. A call's tokens, a swallowed stop string and the
    /// end-of-generation token are not part of it.
    package var logprobs: [TokenLogprob]? = nil

    /// Why the reply ended, as the wire reports it: a call ends it with `.toolCalls`.
    package var finishReason: FinishReason { result.metrics.finishReason }
    package var isCancelled: Bool { result.metrics.finishReason == .cancelled }
}
