import Tools

/// One tool call the model made, and what came back.
public struct ToolInvocation: Sendable, Equatable {
    /// The tool called; nil when the model's call did not parse.
    public var name: String?
    /// The arguments; nil when the call did not parse.
    public var arguments: ToolArguments?
    /// The tool's result, or the error text the model was given instead.
    public var result: String
    /// Why the call failed (`unknownTool`, `invalidToolArguments`, `malformedToolCall`,
    /// `toolFailed`); nil when it succeeded. A failed call does not end the chat: the model
    /// reads the error and carries on.
    public var error: OnDeviceError?
}

extension ToolInvocation {
    /// The public form of an engine record, its failure typed by re-checking the call against
    /// the tools (the loop tells the model in words; apps get the case).
    init(_ record: ToolCallRecord, registry: ToolRegistry) {
        name = record.call?.name
        arguments = record.call.map { ToolArguments($0.arguments) }
        result = record.result
        error = Self.failure(of: record, registry: registry)
    }

    static func failure(of record: ToolCallRecord, registry: ToolRegistry) -> OnDeviceError? {
        guard record.isError else { return nil }
        guard let call = record.call else { return .malformedToolCall(reason: record.result) }
        guard let tool = registry.tool(named: call.name) else {
            return .unknownTool(name: call.name, available: registry.tools.map(\.name))
        }
        do {
            try tool.parameters.validate(call.arguments)
        } catch {
            return .invalidToolArguments(tool: call.name, reason: error.description)
        }
        return .toolFailed(tool: call.name, reason: record.result)
    }
}
