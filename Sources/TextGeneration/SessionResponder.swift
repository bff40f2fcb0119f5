import EngineSupport
import StructuredOutput
import Tokenizers
import Tools

/// Assistant turns on a model through the text core: the conversation rendered with the model's
/// chat template, generated on the session (its KV cache reuses the conversation's prefix turn
/// after turn), tool calls constrained by the registry's grammar so a call always parses and
/// names a registered tool with arguments valid for it.
///
/// Not thread-safe: one conversation drives a responder at a time.
package final class SessionResponder: AssistantResponding {
    package let session: Session
    package let template: ChatTemplate
    package var options: GenerationOptions

    package init(session: Session, options: GenerationOptions) throws(EngineError) {
        self.session = session
        self.template = try session.model.chatTemplate()
        self.options = options
    }

    package var rendersTools: Bool { template.rendersTools }

    package func respond(to messages: [ChatMessage], tools: ToolChoice,
                         onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply {
        try await respond(to: messages, tools: tools, offered: ToolRegistry(), onText: onText)
    }

    package func respond(to messages: [ChatMessage], tools: ToolChoice, offered: ToolRegistry,
                         onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply {
        var job = TextJob(.chat(messages), tools: offered, options: options)
        switch tools {
        case .none: break
        case .auto(let registry):
            job.tools = registry
            job.output = .toolCall(required: false)
        case .required(let registry):
            job.tools = registry
            job.output = .toolCall(required: true)
        }
        let plan = try TextCore.plan(job, model: session.model, contextLength: session.contextLength)
        let box = SessionBox(session)
        let outcome = try await ComputeThread.run(name: "ondevice.respond") { flag in
            try TextCore.run(plan, on: box.session, isCancelled: { flag.isCancelled }, onText: onText)
        }
        if outcome.isCancelled { throw CancellationError() }
        return AssistantReply(text: outcome.result.text, metrics: outcome.result.metrics)
    }
}
