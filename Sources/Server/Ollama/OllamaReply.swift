import Foundation
import OnDevice
import StructuredOutput

/// One `/api/generate` or `/api/chat` answer in Ollama's shape: streamed as newline-delimited
/// JSON (`application/x-ndjson`: a line per piece of text, then the closing line), or whole.
/// The closing object carries `done: true`, `done_reason`, the token counts and the durations
/// in nanoseconds: `load_duration` from the request's arrival to the start of generation (the
/// queue, the load if the model was not resident, the prompt's rendering), `prompt_eval_*` the
/// prompt pass, `eval_*` the generated tokens.
final class OllamaReply {
    let model: String
    let chat: Bool
    let started: ContinuousClock.Instant
    let responder: HTTPResponder
    private var generationStarted: ContinuousClock.Instant?

    init(model: String, chat: Bool, started: ContinuousClock.Instant, responder: HTTPResponder) {
        self.model = model
        self.chat = chat
        self.started = started
        self.responder = responder
    }

    /// The request passed every check and generation begins: a stream's head goes out now (so
    /// queue and load errors before it keep their status).
    func began(streaming: Bool) {
        generationStarted = ContinuousClock.now
        if streaming && responder.status == nil { responder.startStream(contentType: "application/x-ndjson") }
    }

    func piece(_ text: String) {
        line(head() + [content(text), ("done", .bool(false))])
    }

    func finishStream(_ outcome: Completion) {
        if chat && !outcome.toolCalls.isEmpty {
            line(head() + [("message", message("", calls: outcome)), ("done", .bool(false))])
        }
        line(closing(outcome, text: ""))
        responder.finishStream()
    }

    func sendWhole(_ outcome: Completion) {
        responder.send(json: JSONValue.make(closing(outcome, text: outcome.text, calls: true)).serialized)
    }

    /// An error after the stream started: one `{"error": …}` line (the official client raises
    /// it), then the end.
    func fail(_ error: ServerError) {
        line(OllamaAPI.errorBody(error).objectPairs)
        responder.finishStream()
    }

    private func head() -> [(String, JSONValue)] {
        [("model", .string(model)), ("created_at", .string(OllamaAPI.timestamp()))]
    }

    private func content(_ text: String) -> (String, JSONValue) {
        chat ? ("message", message(text, calls: nil)) : ("response", .string(text))
    }

    private func message(_ text: String, calls outcome: Completion?) -> JSONValue {
        var fields: [(String, JSONValue)] = [("role", .string("assistant")), ("content", .string(text))]
        if let outcome, !outcome.toolCalls.isEmpty {
            // Arguments as an object, as Ollama sends them (OpenAI sends a string).
            fields.append(("tool_calls", .array(outcome.toolCalls.enumerated().map { i, call in
                .make([("function", .make([("index", .int(i)), ("name", .string(call.name)),
                                           ("arguments", (try? JSONValue(parsing: call.arguments)) ?? .make([]))]))])
            })))
        }
        return .make(fields)
    }

    private func closing(_ outcome: Completion, text: String, calls: Bool = false) -> [(String, JSONValue)] {
        let end = ContinuousClock.now
        let m = outcome.result.metrics
        let load = (generationStarted ?? end) - started
        var fields = head()
        fields.append(chat ? ("message", message(text, calls: calls ? outcome : nil)) : ("response", .string(text)))
        fields += [
            ("done", .bool(true)),
            // Ollama has no tool_calls reason: a reply that called a tool stopped.
            ("done_reason", .string(outcome.wireFinishReason == "length" ? "length" : "stop")),
            ("total_duration", .int(Self.nanoseconds(end - started))),
            ("load_duration", .int(Self.nanoseconds(load))),
            ("prompt_eval_count", .int(m.promptTokens)),
            ("prompt_eval_duration", .int(Int(m.promptSeconds * 1e9))),
            ("eval_count", .int(m.completionTokens)),
            ("eval_duration", .int(Int(m.generationSeconds * 1e9))),
        ]
        return fields
    }

    private func line(_ fields: [(String, JSONValue)]) {
        responder.write(Array((JSONValue.make(fields).serialized + "\n").utf8))
    }

    static func nanoseconds(_ d: Duration) -> Int {
        let (seconds, attoseconds) = d.components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}

extension JSONValue {
    /// An object's members as pairs (empty for anything else).
    var objectPairs: [(String, JSONValue)] {
        if case .object(let members) = self { return members.map { ($0.key, $0.value) } }
        return []
    }
}
