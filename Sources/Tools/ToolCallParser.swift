import StructuredOutput
/// Finds the tool calls in an assistant reply: each `<tool_call>` followed by a JSON object
/// `{"name": string, "arguments": object}` (arguments given as a JSON string are accepted too),
/// optionally closed by `</tool_call>`. Everything else is the reply's content.
///
/// Under constrained decoding a call always parses; a scripted or unconstrained model may
/// write anything, so a call that does not parse becomes `.malformed` with the reason, which
/// the loop reports back to the model.
package enum ToolCallParser {
    package enum Parsed: Sendable, Equatable {
        case call(ToolCall)
        case malformed(String)
    }

    package static func parse(_ text: String) -> (content: String, calls: [Parsed]) {
        var content = ""
        var calls: [Parsed] = []
        var rest = text[...]
        while let open = rest.range(of: ToolRegistry.callOpen) {
            content += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            var parser = JSONParser(bytes: Array(after.utf8))
            do throws(EngineError) {
                let (value, end) = try parser.leadingValue()
                calls.append(interpret(value))
                rest = after.utf8.index(after.startIndex, offsetBy: end, limitedBy: after.endIndex).map { after[$0...] } ?? ""
                let trimmed = rest.drop { $0.isWhitespace }
                if trimmed.hasPrefix(ToolRegistry.callClose) { rest = trimmed.dropFirst(ToolRegistry.callClose.count) }
            } catch {
                calls.append(.malformed("the text after \(ToolRegistry.callOpen) is not a JSON object (\(error))"))
                // Skip to the end of this call, if it has one.
                rest = after.range(of: ToolRegistry.callClose).map { after[$0.upperBound...] } ?? ""
            }
        }
        content += rest
        return (trimmed(content), calls)
    }

    private static func interpret(_ value: JSONValue) -> Parsed {
        guard case .object = value else { return .malformed("a call must be a JSON object, not \(value.typeName)") }
        guard case .string(let name)? = value["name"] else { return .malformed("the call has no string \"name\"") }
        switch value["arguments"] {
        case .object(let members)?:
            return .call(ToolCall(name: name, arguments: .object(members)))
        case .string(let text)?:
            if let parsed = try? JSONValue(parsing: text), case .object = parsed { return .call(ToolCall(name: name, arguments: parsed)) }
            return .malformed("the \"arguments\" of \(name) are not a JSON object")
        case nil:
            return .malformed("the call to \(name) has no \"arguments\"")
        default:
            return .malformed("the \"arguments\" of \(name) are not a JSON object")
        }
    }

    /// `text` without leading and trailing whitespace.
    static func trimmed(_ text: String) -> String {
        String(String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }).reversed())
    }
}
