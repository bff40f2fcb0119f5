import Foundation
import StructuredOutput
import Tools

/// The arguments of one tool call: a JSON object, already valid against the tool's schema.
public struct ToolArguments: Sendable, Equatable, CustomStringConvertible {
    let value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    /// The arguments as JSON text, e.g. `{"expression":"6 * 7"}`.
    public var json: String { value.serialized }

    public var description: String { json }

    /// The names of the arguments given, in the order the model wrote them.
    public var keys: [String] { value.members?.map(\.key) ?? [] }

    /// A string argument, or nil when absent or not a string.
    public func string(_ key: String) -> String? { value[key]?.string }

    /// A number argument, or nil when absent or not a number.
    public func number(_ key: String) -> Double? { value[key]?.number }

    /// A boolean argument, or nil when absent or not a boolean.
    public func bool(_ key: String) -> Bool? {
        if case .bool(let b)? = value[key] { return b }
        return nil
    }

    /// The arguments decoded into `T` with Foundation's `JSONDecoder`.
    /// - Throws: `OnDeviceError.invalidArgument` when they do not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do throws(EngineError) { return try StructuredOutput.decode(json, as: type) } catch {
            throw OnDeviceError.invalidArgument(error.description)
        }
    }
}
