/// One text generation described as an OpenAI-style API receives it: the input, what shape the
/// output must take (free text, a JSON document, or tool calls returned to the caller rather
/// than run), the sampling options and how many replies. `TextModel.completions` runs it; the
/// server's chat and completion endpoints (OpenAI's and Ollama's) are this call.
public struct CompletionRequest: Sendable {
    public enum Input: Sendable, Equatable {
        /// A conversation, rendered with the model's chat template.
        case chat([Message])
        /// Text as is (`TextOptions.parseSpecialTokens` decides whether control-token text in
        /// it is read as control tokens).
        case raw(String)
        /// One user turn after an optional system prompt, in the chat template; as is for a
        /// model without one.
        case user(String, system: String?)
    }

    /// Which calls a reply may make.
    public enum ToolUse: Sendable, Equatable {
        /// The model chooses between words and calls.
        case auto
        /// The reply must be a call.
        case required
        /// The reply must be a call to this tool (the model still reads every tool).
        case only(String)
        /// The model is told about the tools but answers in words.
        case describeOnly
    }

    public enum Output: Sendable {
        case text
        /// A JSON document valid against `schema` (JSON Schema text): every token is constrained.
        case json(schema: String)
        /// Calls to `tools`, returned in `Completion.toolCalls`; their handlers are not run.
        case tools([Tool], use: ToolUse)
    }

    public var input: Input
    public var output: Output
    public var options: TextOptions
    /// How many replies, each sampled with its own seed drawn from `options.seed`, one after
    /// another on the same session (the prompt is read once).
    public var choices = 1
    /// With tool output, the most calls one reply may make.
    public var maxCallsPerReply = 1

    public init(_ input: Input, output: Output = .text, options: TextOptions = TextOptions()) {
        self.input = input
        self.output = output
        self.options = options
    }
}
