import OnDevice
import StructuredOutput

/// The chat-specific fields: messages (text or text parts; assistant tool calls and tool
/// results as structured turns, which the text core writes the way the model's template
/// expects), `response_format` and `tools`.
extension TextRequest {
    init(chat body: JSONValue) throws(ServerError) {
        try self.init(body: body) { body throws(ServerError) in .chat(try Self.messages(body["messages"])) }
        // `logprobs` is a switch here; `top_logprobs` asks for alternatives and needs it on.
        let logprobs = try Self.optional(body, "logprobs", \.bool, "a boolean") ?? false
        let top = try Self.optional(body, "top_logprobs", \.integer, "an integer")
        if let top {
            guard (0...Self.maxTopLogprobs).contains(top) else {
                throw .invalidRequest("top_logprobs must be between 0 and \(Self.maxTopLogprobs)", param: "top_logprobs")
            }
            guard logprobs else { throw .invalidRequest("top_logprobs needs logprobs set to true", param: "top_logprobs") }
        }
        if logprobs { logprobAlternatives = top ?? 0 }
        parallelToolCalls = try Self.optional(body, "parallel_tool_calls", \.bool, "a boolean") ?? true
        let choice = try Self.toolChoice(body["tool_choice"])
        if let tools = body["tools"], !tools.isNull {
            output = try Self.tools(tools, choice: choice)
        } else if case .required = choice {
            throw .invalidRequest("tool_choice 'required' needs 'tools'", param: "tool_choice")
        } else if case .function = choice {
            throw .invalidRequest("tool_choice names a function but there are no 'tools'", param: "tool_choice")
        }
        if let format = body["response_format"], !format.isNull {
            guard let type = format["type"]?.string else { throw .invalidRequest("response_format needs a 'type'", param: "response_format") }
            switch type {
            case "text": break
            case "json_object":
                // Any JSON object: members of any name and value (the grammar bounds how deep
                // free-form values nest; see JSONSchema).
                output = .json(schema: try Self.schema(Self.anyObject, param: "response_format").document.serialized)
            case "json_schema":
                guard let schema = format["json_schema"]?["schema"] else {
                    throw .invalidRequest("response_format.json_schema.schema is required", param: "response_format")
                }
                output = .json(schema: try Self.schema(schema, param: "response_format.json_schema.schema").document.serialized)
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
        // The legacy form: `logprobs` is the number of alternatives per token (at most 5).
        if let k = try Self.optional(body, "logprobs", \.integer, "an integer") {
            guard (0...Self.maxLegacyLogprobs).contains(k) else {
                throw .invalidRequest("logprobs must be between 0 and \(Self.maxLegacyLogprobs)", param: "logprobs")
            }
            logprobAlternatives = k
        }
    }

    /// `/v1/completions`' limit on `logprobs`, as OpenAI's.
    static let maxLegacyLogprobs = 5

    /// `tool_choice`, parsed once.
    enum ToolUse: Equatable {
        case none, auto, required
        case function(String)
    }

    private static func toolChoice(_ value: JSONValue?) throws(ServerError) -> ToolUse {
        switch value {
        case nil, .null?, .string("auto")?: return .auto
        case .string("none")?: return .none
        case .string("required")?: return .required
        case .object?:
            guard value?["type"]?.string == "function", let name = value?["function"]?["name"]?.string else {
                throw .invalidRequest("tool_choice must be {\"type\": \"function\", \"function\": {\"name\": …}}", param: "tool_choice")
            }
            return .function(name)
        default:
            throw .invalidRequest("tool_choice must be 'none', 'auto', 'required' or a function", param: "tool_choice")
        }
    }

    /// A schema for any JSON object (OpenAI's `json_object`, Ollama's `format: "json"`).
    static let anyObject = JSONValue.object([.init("type", .string("object")), .init("additionalProperties", .bool(true))])

    static func schema(_ document: JSONValue, param: String) throws(ServerError) -> JSONSchema {
        do { return try JSONSchema(document: document) } catch { throw .invalidRequest("unsupported JSON Schema: \(error)", param: param) }
    }

    /// OpenAI's messages, and Ollama's (tool-call arguments as an object, `tool_name` on results).
    static func messages(_ value: JSONValue?) throws(ServerError) -> [Message] {
        guard let items = value?.array, !items.isEmpty else { throw .invalidRequest("'messages' must be a non-empty array", param: "messages") }
        var out: [Message] = []
        for (i, item) in items.enumerated() {
            let param = "messages[\(i)]"
            guard let roleName = item["role"]?.string else { throw .invalidRequest("\(param) needs a string 'role'", param: param) }
            let content = try text(item["content"], param: param + ".content")
            if let images = item["images"]?.array, !images.isEmpty {
                throw .invalidRequest("\(param).images: the text models of this server read text only", param: param + ".images")
            }
            switch roleName {
            case "system", "developer": out.append(.system(content))
            case "user": out.append(.user(content))
            case "assistant":
                var calls: [Message.ToolCall] = []
                for call in item["tool_calls"]?.array ?? [] {
                    guard let name = call["function"]?["name"]?.string else { throw .invalidRequest("\(param).tool_calls needs function names", param: param) }
                    let arguments: JSONValue = switch call["function"]?["arguments"] {
                    case .object(let members)?: .object(members)
                    case .string(let text)?: (try? JSONValue(parsing: text)) ?? .make([])
                    default: .make([])
                    }
                    calls.append(Message.ToolCall(name: name, arguments: arguments.serialized))
                }
                out.append(.assistant(content, toolCalls: calls))
            case "tool", "function":
                out.append(.tool(content, name: item["name"]?.string ?? item["tool_name"]?.string))
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

    static func tools(_ value: JSONValue, choice: ToolUse) throws(ServerError) -> Output {
        guard let items = value.array else { throw .invalidRequest("'tools' must be an array", param: "tools") }
        var tools: [Tool] = []
        for (i, item) in items.enumerated() {
            let param = "tools[\(i)]"
            guard item["type"]?.string == "function", let function = item["function"], let name = function["name"]?.string, !name.isEmpty else {
                throw .invalidRequest("\(param) must be {\"type\": \"function\", \"function\": {\"name\": …}}", param: param)
            }
            let parameters = try schema(function["parameters"] ?? .make([("type", .string("object")), ("properties", .make([]))]),
                                        param: param + ".function.parameters")
            // The server only returns calls to the client; it never runs a handler.
            do {
                tools.append(try Tool(name: name, description: function["description"]?.string ?? "",
                                      parameters: parameters.document.serialized) { _ in
                    throw ServerError.invalidRequest("tools are run by the client")
                })
            } catch let error as OnDeviceError {
                throw .invalidRequest(error.reason ?? error.message, param: param + ".function.parameters")
            } catch {
                throw .invalidRequest("\(error)", param: param + ".function.parameters")
            }
        }
        guard !tools.isEmpty else {
            if choice == .required { throw .invalidRequest("tool_choice 'required' needs 'tools'", param: "tool_choice") }
            if case .function = choice { throw .invalidRequest("tool_choice names a function but 'tools' is empty", param: "tool_choice") }
            return .text
        }
        switch choice {
        case .none: return .tools(tools, use: .describeOnly)
        case .auto: return .tools(tools, use: .auto)
        case .required: return .tools(tools, use: .required)
        case .function(let name):
            guard tools.contains(where: { $0.name == name }) else {
                throw .invalidRequest("tool_choice names '\(name)', which is not in 'tools'", param: "tool_choice")
            }
            // The model still reads every tool; only the call is held to this one.
            return .tools(tools, use: .only(name))
        }
    }
}
