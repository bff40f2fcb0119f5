import StructuredOutput
import Tokenizers
import Tools

/// How one assistant turn may use tools.
package enum ToolChoice: Sendable {
    /// No calls: the turn is a plain answer.
    case none
    /// The model decides; once it writes `<tool_call>`, the call is constrained to the tools.
    case auto(ToolRegistry)
    /// The turn must be a call to one of the tools.
    case required(ToolRegistry)
}

/// An assistant turn's text (a call included, as written) and its generation figures.
package struct AssistantReply: Sendable, Equatable {
    package var text: String
    package var metrics: GenerationMetrics?
    package init(text: String, metrics: GenerationMetrics? = nil) {
        self.text = text
        self.metrics = metrics
    }
}

/// Writes the assistant's next message in a conversation: the engine on a model
/// (`SessionResponder`), or a script in tests of the loop.
package protocol AssistantResponding {
    /// `onText` receives the answer's text as it is generated (a call's text is not passed on).
    func respond(to messages: [ChatMessage], tools: ToolChoice, onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply
    /// As above, with every tool the conversation offers (also on turns that may not call), for
    /// responders whose chat template lays the tools out itself.
    func respond(to messages: [ChatMessage], tools: ToolChoice, offered: ToolRegistry,
                 onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply
    /// Whether the model's template renders tool definitions, calls and results itself (Qwen's
    /// does); otherwise the loop describes the tools in a system message and writes calls and
    /// results as text.
    var rendersTools: Bool { get }
}

extension AssistantResponding {
    package func respond(to messages: [ChatMessage], tools: ToolChoice, offered: ToolRegistry,
                         onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply {
        try await respond(to: messages, tools: tools, onText: onText)
    }
    package var rendersTools: Bool { false }
}

/// The call-and-execute loop: the model answers or calls a tool; each call is validated and
/// run, its result goes back as a `tool` message, and the model goes on — until it answers
/// without a call or `maxCalls` calls have been made (then one last turn without tools).
///
/// Calls also close when they stop bringing anything new: a reply that repeats a call already
/// made (same tool, same arguments) is dropped unrun, and a call whose result is the previous
/// call's result again ends calling after it. The model then answers from what it has, on a turn
/// that may not call. Small models otherwise go on calling with the answer they were given
/// (Qwen2.5-Coder-0.5B does, under llama.cpp's server too).
package struct ToolCallLoop: Sendable {
    package var registry: ToolRegistry
    package var maxCalls: Int
    /// Make the first turn a call (for requests that surely need a tool).
    package var requireFirstCall = false

    package init(registry: ToolRegistry, maxCalls: Int = 4) {
        self.registry = registry
        self.maxCalls = maxCalls
    }

    package enum Event: Sendable, Equatable {
        case text(String)
        case call(ToolCall?)
        case result(ToolCallRecord)
    }

    package struct Outcome: Sendable, Equatable {
        /// The final answer's text.
        package var answer: String
        package var calls: [ToolCallRecord]
        /// The conversation, with the tools' system prompt, every call, result and the answer.
        package var messages: [ChatMessage]
        /// The model still wanted to call a tool when the limit was reached.
        package var reachedCallLimit: Bool
        /// Metrics of each turn, when the responder reports them.
        package var turns: [GenerationMetrics?]
    }

    package func run(messages: [ChatMessage], responder: some AssistantResponding,
                     onEvent: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> Outcome {
        let inTemplate = responder.rendersTools
        var conversation = inTemplate ? messages : withToolPrompt(messages)
        var records: [ToolCallRecord] = []
        var turns: [GenerationMetrics?] = []
        var closed = false
        while true {
            try Task.checkCancellation()
            let mayCall = !registry.isEmpty && records.count < maxCalls && !closed
            let choice: ToolChoice = !mayCall ? .none : requireFirstCall && turns.isEmpty ? .required(registry) : .auto(registry)
            let reply = try await responder.respond(to: conversation, tools: choice, offered: registry) { onEvent(.text($0)) }
            turns.append(reply.metrics)
            let (content, calls) = ToolCallParser.parse(reply.text)
            if calls.isEmpty || !mayCall {
                conversation.append(ChatMessage(role: .assistant, content: content))
                return Outcome(answer: content, calls: records, messages: conversation,
                               reachedCallLimit: !calls.isEmpty && records.count >= maxCalls, turns: turns)
            }
            if calls.contains(where: { parsed in
                guard case .call(let call) = parsed else { return false }
                return records.contains { $0.call == call }
            }) {
                closed = true
                continue
            }
            conversation.append(inTemplate
                ? Self.structured(content: content, calls: calls, raw: reply.text)
                : ChatMessage(role: .assistant, content: Self.canonical(content: content, calls: calls, raw: reply.text)))
            for parsed in calls.prefix(maxCalls - records.count) {
                if case .call(let call) = parsed { onEvent(.call(call)) } else { onEvent(.call(nil)) }
                let record = await execute(parsed)
                onEvent(.result(record))
                if let last = records.last, !record.isError, !last.isError, last.call?.name == record.call?.name,
                   last.result == record.result {
                    closed = true
                }
                records.append(record)
                // A template that lays out results wraps the content itself (<tool_response>).
                conversation.append(ChatMessage(role: .tool, content: inTemplate
                    ? (record.isError ? "error: \(record.result)" : record.result)
                    : ToolRegistry.response(name: record.call?.name, result: record.result, isError: record.isError),
                    name: record.call?.name))
            }
        }
    }

    /// Runs one parsed call; every failure becomes an error result for the model to read.
    package func execute(_ parsed: ToolCallParser.Parsed) async -> ToolCallRecord {
        let call: ToolCall
        switch parsed {
        case .malformed(let reason): return ToolCallRecord(call: nil, result: reason, isError: true)
        case .call(let c): call = c
        }
        guard let tool = registry.tool(named: call.name) else {
            let names = registry.tools.map(\.name).joined(separator: ", ")
            return ToolCallRecord(call: call, result: "there is no tool named \(call.name); the tools are: \(names)", isError: true)
        }
        do {
            try tool.parameters.validate(call.arguments)
        } catch {
            return ToolCallRecord(call: call, result: "invalid arguments: \(error)", isError: true)
        }
        do {
            return ToolCallRecord(call: call, result: try await tool.handler(call.arguments), isError: false)
        } catch let error as EngineError {
            return ToolCallRecord(call: call, result: error.description, isError: true)
        } catch {
            return ToolCallRecord(call: call, result: String(describing: error), isError: true)
        }
    }

    /// The conversation with the tools described in its system message (added if missing).
    package func withToolPrompt(_ messages: [ChatMessage]) -> [ChatMessage] {
        ToolConversation.described(messages, tools: registry)
    }

    /// The assistant message for a template that lays calls out itself: the text before the
    /// calls as content and each call structured; the raw text when a call did not parse.
    static func structured(content: String, calls: [ToolCallParser.Parsed], raw: String) -> ChatMessage {
        var toolCalls: [ChatToolCall] = []
        for c in calls {
            guard case .call(let call) = c else { return ChatMessage(role: .assistant, content: raw) }
            toolCalls.append(ChatToolCall(name: call.name, argumentsJSON: call.arguments.serialized))
        }
        return ChatMessage(role: .assistant, content: content, toolCalls: toolCalls)
    }

    /// The assistant message recorded for a turn with calls: its text, then each call in its
    /// canonical form with the closing tag (a constrained call stops before writing it); the
    /// raw text when a call did not parse.
    static func canonical(content: String, calls: [ToolCallParser.Parsed], raw: String) -> String {
        var structured: [ChatToolCall] = []
        for c in calls {
            guard case .call(let call) = c else { return raw }
            structured.append(ChatToolCall(name: call.name, argumentsJSON: call.arguments.serialized))
        }
        return ToolConversation.canonical(content: content, calls: structured)
    }
}
