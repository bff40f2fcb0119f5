import StructuredOutput
import Tokenizers
import Tools

/// The chat-specific fields: messages (text or text parts; assistant tool calls and tool
/// results as structured turns, which the text core writes the way the model's template
/// expects), `response_format` and `tools`.
extension TextRequest {
    init(chat body: JSONValue) throws(ServerError) {
        try self.init(body: body) { body throws(ServerError) in .chat(try Self.messages(body["messages"])) }
        let choice = body["tool_choice"]
        if let tools = body["tools"], !tools.isNull, choice?.string != "none" {
            output = try Self.tools(tools, choice: choice)
        }
        if let format = body["response_format"], !format.isNull {
            guard let type = format["type"]?.string else { throw .invalidRequest("response_format needs a 'type'", param: "response_format") }
            switch type {
            case "text": break
            case "json_object":
                // Any JSON object: members of any name and value (the grammar bounds how deep
                // free-form values nest; see JSONSchema).
                output = .schema(try Self.schema(Self.anyObject, param: "response_format"))
            case "json_schema":
                guard let schema = format["json_schema"]?["schema"] else {
                    throw .invalidRequest("response_format.json_schema.schema is required", param: "response_format")
                }
                output = .schema(try Self.schema(schema, param: "response_format.json_schema.schema"))
            default:
                throw .invalidRequest("unknown response_format type '\(type)'", param: "response_format")
            }
        }
    }

    init(completion body: JSONValue) throws(ServerError) {
        try self.init(body: body) { body throws(ServerError) in
            switch body["prompt"] {
            case .string(let s)?: return .raw(s)
            case .array(let items)? where items.count == 1 && items[0].string != nil: return .raw(items[0].string ?? "")
            default: throw .invalidRequest("'prompt' must be a string", param: "prompt")
            }
        }
    }

    /// A schema for any JSON object (OpenAI's `json_object`, Ollama's `format: "json"`).
    static let anyObject = JSONValue.object([.init("type", .string("object")), .init("additionalProperties", .bool(true))])

    static func schema(_ document: JSONValue, param: String) throws(ServerError) -> JSONSchema {
        do { return try JSONSchema(document: document) } catch { throw .invalidRequest("unsupported JSON Schema: \(error)", param: param) }
    }

    /// OpenAI's messages, and Ollama's (tool-call arguments as an object, `tool_name` on results).
    static func messages(_ value: JSONValue?) throws(ServerError) -> [ChatMessage] {
        guard let items = value?.array, !items.isEmpty else { throw .invalidRequest("'messages' must be a non-empty array", param: "messages") }
        var out: [ChatMessage] = []
        for (i, item) in items.enumerated() {
            let param = "messages[\(i)]"
            guard let roleName = item["role"]?.string else { throw .invalidRequest("\(param) needs a string 'role'", param: param) }
            let content = try text(item["content"], param: param + ".content")
            if let images = item["images"]?.array, !images.isEmpty {
                throw .invalidRequest("\(param).images: the text models of this server read text only", param: param + ".images")
            }
            switch roleName {
            case "system", "developer": out.append(ChatMessage(role: .system, content: content))
            case "user": out.append(ChatMessage(role: .user, content: content))
            case "assistant":
                var calls: [ChatToolCall] = []
                for call in item["tool_calls"]?.array ?? [] {
                    guard let name = call["function"]?["name"]?.string else { throw .invalidRequest("\(param).tool_calls needs function names", param: param) }
                    let arguments: JSONValue = switch call["function"]?["arguments"] {
                    case .object(let members)?: .object(members)
                    case .string(let text)?: (try? JSONValue(parsing: text)) ?? .make([])
                    default: .make([])
                    }
                    calls.append(ChatToolCall(name: name, argumentsJSON: arguments.serialized))
                }
                out.append(ChatMessage(role: .assistant, content: content, toolCalls: calls))
            case "tool", "function":
                out.append(ChatMessage(role: .tool, content: content, name: item["name"]?.string ?? item["tool_name"]?.string))
            default:
                throw .invalidRequest("\(param) has unknown role '\(roleName)'", param: param)
            }
        }
        return out
    }

    /// A string, an array of `{"type": "text", "text": …}` parts (joined), or null (empty).
    private static func text(_ value: JSONValue?, param: String) throws(ServerError) -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let s)?: return s
        case .array(let parts)?:
            var texts: [String] = []
            for part in parts {
                guard part["type"]?.string == "text", let t = part["text"]?.string else {
                    throw .invalidRequest("only text content parts are supported", param: param)
                }
                texts.append(t)
            }
            return texts.joined(separator: "\n")
        default: throw .invalidRequest("content must be a string or an array of text parts", param: param)
        }
    }

    static func tools(_ value: JSONValue, choice: JSONValue?) throws(ServerError) -> Output {
        guard let items = value.array else { throw .invalidRequest("'tools' must be an array", param: "tools") }
        var registry = ToolRegistry()
        for (i, item) in items.enumerated() {
            let param = "tools[\(i)]"
            guard item["type"]?.string == "function", let function = item["function"], let name = function["name"]?.string, !name.isEmpty else {
                throw .invalidRequest("\(param) must be {\"type\": \"function\", \"function\": {\"name\": …}}", param: param)
            }
            let parameters = try schema(function["parameters"] ?? .make([("type", .string("object")), ("properties", .make([]))]),
                                        param: param + ".function.parameters")
            // The server only returns calls to the client; it never runs a handler.
            let tool: Tool
            do {
                tool = try Tool(name: name, description: function["description"]?.string ?? "", parameters: parameters) { _ in
                    throw ServerError.invalidRequest("tools are run by the client")
                }
            } catch { throw .invalidRequest("\(error)", param: param + ".function.parameters") }
            registry.register(tool)
        }
        guard !registry.isEmpty else { return .text }
        switch choice {
        case nil, .null?, .string("auto")?: return .tools(registry, required: false)
        case .string("required")?: return .tools(registry, required: true)
        case .object?:
            guard let name = choice?["function"]?["name"]?.string, let tool = registry.tool(named: name) else {
                throw .invalidRequest("tool_choice names no tool in 'tools'", param: "tool_choice")
            }
            return .tools(ToolRegistry([tool]), required: true)
        default: throw .invalidRequest("tool_choice must be none, auto, required or a function", param: "tool_choice")
        }
    }
}
