import StructuredOutput
/// The tools a conversation offers, by name, and what the model is told about them.
///
/// Calls follow the Hermes / ChatML convention: signatures listed inside `<tools></tools>` in
/// the system prompt, a call written as `<tool_call>{"name": …, "arguments": {…}}</tool_call>`,
/// a result returned in a `tool` message inside `<tool_response></tool_response>`.
package struct ToolRegistry: Sendable {
    package private(set) var tools: [Tool] = []

    package init(_ tools: [Tool] = []) {
        for t in tools { register(t) }
    }

    /// Adds a tool, replacing one of the same name.
    package mutating func register(_ tool: Tool) {
        tools.removeAll { $0.name == tool.name }
        tools.append(tool)
    }

    package func tool(named name: String) -> Tool? { tools.first { $0.name == name } }

    package var isEmpty: Bool { tools.isEmpty }

    /// The text that opens a call.
    package static let callOpen = "<tool_call>"
    package static let callClose = "</tool_call>"

    /// A call to any registered tool: `{"name": <one of the names>, "arguments": <its schema>}`.
    /// The name's bytes choose the tool, so the grammar then holds the arguments to that tool's
    /// schema.
    package var callSchema: JSONSchema {
        // Each tool's recursive `$ref`s keep their own definitions, apart from the other tools'.
        var definitions: [String: JSONSchema.Shape] = [:]
        let variants = tools.map { t in
            let rename = { (pointer: String) in "tools/\(t.name)/\(pointer)" }
            for (pointer, shape) in t.parameters.definitions { definitions[rename(pointer)] = JSONSchema.renamingReferences(shape, rename) }
            let arguments = JSONSchema.renamingReferences(t.parameters.shape, rename)
            return JSONSchema.Variant(tag: t.name, rest: .init(properties: [.init("arguments", arguments)], required: ["arguments"]))
        }
        let document = JSONValue.object([.init("anyOf", .array(tools.map { t in
            .object([
                .init("type", .string("object")),
                .init("properties", .object([.init("name", .object([.init("const", .string(t.name))])),
                                             .init("arguments", t.parameters.document)])),
                .init("required", .array([.string("name"), .string("arguments")])),
            ])
        }))])
        return JSONSchema(shape: .taggedUnion(key: "name", variants: variants), document: document, definitions: definitions)
    }

    /// The system-prompt block that lists the tools and how to call them.
    package var systemPrompt: String {
        var text = "You can call functions to help with the user's request. The functions are listed as JSON signatures inside <tools></tools>:\n<tools>\n"
        for t in tools { text += t.signature.serialized + "\n" }
        text += "</tools>\n"
        text += "To call a function, reply with only a JSON object holding its name and arguments inside <tool_call></tool_call> tags:\n"
        text += "\(Self.callOpen)\n{\"name\": <function-name>, \"arguments\": <arguments-object>}\n\(Self.callClose)\n"
        text += "Each result comes back inside <tool_response></tool_response>. Once you have what you need, answer the user in plain words."
        return text
    }

    /// The content of the `tool` message carrying a call's outcome.
    package static func response(name: String?, result: String, isError: Bool) -> String {
        let body = JSONValue.object([.init("name", name.map(JSONValue.string) ?? .null), .init(isError ? "error" : "content", .string(result))])
        return "<tool_response>\n\(body.serialized)\n</tool_response>"
    }
}
