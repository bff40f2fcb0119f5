/// Decides from the first bytes of an assistant reply whether the model is opening a tool call
/// without the `<tool_call>` tag: a reply that starts (after whitespace) with a JSON object's
/// `{"name"` or with a ```json / ```xml fence. These are the openings llama.cpp's Hermes-format
/// parser accepts as calls at the start of a reply (Qwen 2.5 models write them often); the
/// responder then writes the call again under the tool-call grammar, so it still parses.
package struct CallOpening: Sendable {
    package enum Decision: Sendable, Equatable {
        /// Not yet known; the text so far is held back.
        case undecided
        /// An ordinary answer: pass on this text (everything held so far, then each piece).
        case answer(String)
        /// A call is opening.
        case call
    }

    static let openings = [#"{"name""#, #"{ "name""#, "```json", "```xml"]
    private var held = ""
    private var decided: Decision?

    package init() {}

    package mutating func feed(_ piece: String) -> Decision {
        if case .answer? = decided { return .answer(piece) }
        if decided == .call { return .call }
        held += piece
        let start = held.drop { $0 == " " || $0 == "\n" || $0 == "\t" }
        if start.isEmpty { return .undecided }
        if Self.openings.contains(where: { start.hasPrefix($0) }) {
            decided = .call
            return .call
        }
        if Self.openings.contains(where: { $0.hasPrefix(start) }) { return .undecided }
        decided = .answer("")
        defer { held = "" }
        return .answer(held)
    }

    /// Text still held when the reply ended undecided (a reply of only `{` or whitespace).
    package mutating func flush() -> String {
        defer { held = "" }
        return decided == nil ? held : ""
    }
}
