import Foundation
import StructuredOutput
import Tools

/// A function the model may call during `chat(_:tools:options:toolOptions:)`: its name, what it
/// does, a JSON Schema for its arguments, and the handler that runs it.
///
/// ```swift
/// let weather = try Tool(name: "weather", description: "Current weather in a city.",
///                        parameters: #"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#) { args in
///     try await fetchWeather(args.string("city") ?? "")
/// }
/// let reply = try await ai.chat([.user("Is it raining in Oslo?")], tools: [weather, .calculate])
/// ```
///
/// The model's call is constrained to the schema while it is generated, so the handler sees
/// arguments that already validate. What the handler returns (plain text or JSON) goes back to
/// the model; an error it throws goes back as the call's error, and the model carries on.
public struct Tool: Sendable {
    /// The name the model calls the tool by.
    public var name: String { engineTool.name }
    /// What the tool does, as the model is told.
    public var description: String { engineTool.description }
    /// The JSON Schema of the arguments (an object schema), as text.
    public var parameters: String { engineTool.parameters.document.serialized }

    let engineTool: Tools.Tool

    /// A tool with your handler.
    /// - Parameters:
    ///   - parameters: a JSON Schema for an object, as text (the subset that structured
    ///     generation supports: objects, arrays, enums, strings, numbers, booleans).
    ///   - handler: runs a call; receives the validated arguments, returns the result text.
    /// - Throws: `OnDeviceError.invalidArgument` when the name is empty or the schema does not
    ///   parse or does not describe an object.
    public init(name: String, description: String, parameters: String,
                handler: @escaping @Sendable (ToolArguments) async throws -> String) throws {
        guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == "\"" }) else {
            throw OnDeviceError.invalidArgument("tool name '\(name)' must be non-empty, without spaces or quotes")
        }
        let schema: JSONSchema
        do { schema = try JSONSchema(json: parameters) } catch {
            throw OnDeviceError.invalidArgument("JSON Schema of tool \(name): \(error)")
        }
        do {
            engineTool = try Tools.Tool(name: name, description: description, parameters: schema) { value in
                try await handler(ToolArguments(value))
            }
        } catch {
            throw OnDeviceError.invalidArgument(error.description)
        }
    }

    init(engineTool: Tools.Tool) { self.engineTool = engineTool }

    /// `calculate`: evaluates an arithmetic expression (`+ - * / ^ %`, parentheses, `sqrt`,
    /// `abs`, `round` and other common functions) with a parser, never by running code.
    public static var calculate: Tool { Tool(engineTool: .calculate()) }

    /// `current_time`: the current date, time and weekday, in the device's time zone or one the
    /// model names (an IANA id such as `Europe/Lisbon`).
    public static var currentTime: Tool { Tool(engineTool: .currentTime()) }

    /// `current_time` reading a given clock and zone (for replays and tests).
    public static func currentTime(now: @escaping @Sendable () -> Date, timeZone: TimeZone) -> Tool {
        Tool(engineTool: .currentTime(now: now, timeZone: timeZone))
    }

    /// Every built-in tool: `calculate` and `current_time`.
    public static var builtIns: [Tool] { [.calculate, .currentTime] }

    /// The built-in tool of that name, or nil.
    public static func builtIn(named name: String) -> Tool? { builtIns.first { $0.name == name } }
}
