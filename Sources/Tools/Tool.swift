import StructuredOutput
/// A function the model may call: its name, what it does, a JSON Schema (an object) for its
/// arguments, and the handler that runs it.
package struct Tool: Sendable {
    package var name: String
    package var description: String
    package var parameters: JSONSchema
    /// Runs the call with arguments already validated against `parameters`; the returned text
    /// (plain or JSON) goes back to the model. A thrown error goes back as the call's error.
    package var handler: @Sendable (JSONValue) async throws -> String

    /// - Throws: `EngineError.invalidSchema` when `parameters` does not describe an object.
    package init(name: String, description: String, parameters: JSONSchema,
                 handler: @escaping @Sendable (JSONValue) async throws -> String) throws(EngineError) {
        guard case .object = parameters.shape else {
            throw .invalidSchema(path: "#", reason: "the parameters of tool \(name) must be an object schema")
        }
        self.init(checked: name, description: description, parameters: parameters, handler: handler)
    }

    /// For parameters known to be an object schema.
    init(checked name: String, description: String, parameters: JSONSchema,
         handler: @escaping @Sendable (JSONValue) async throws -> String) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.handler = handler
    }

    /// The Hermes-style signature shown to the model inside `<tools>`.
    package var signature: JSONValue {
        .object([
            .init("type", .string("function")),
            .init("function", .object([
                .init("name", .string(name)), .init("description", .string(description)),
                .init("parameters", parameters.document),
            ])),
        ])
    }
}

/// One call the model made.
package struct ToolCall: Sendable, Equatable {
    package var name: String
    package var arguments: JSONValue
    package init(name: String, arguments: JSONValue) {
        self.name = name
        self.arguments = arguments
    }

    /// The call as the model writes it: `{"name":…,"arguments":{…}}`.
    package var json: JSONValue { .object([.init("name", .string(name)), .init("arguments", arguments)]) }
}

/// A call and what came back.
package struct ToolCallRecord: Sendable, Equatable {
    /// The call; nil when the model's call text did not parse.
    package var call: ToolCall?
    /// The tool's result, or the error the model was told about.
    package var result: String
    package var isError: Bool
    package init(call: ToolCall?, result: String, isError: Bool) {
        self.call = call
        self.result = result
        self.isError = isError
    }
}
