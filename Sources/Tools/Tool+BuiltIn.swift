import Foundation
import StructuredOutput

/// The tools every conversation can offer without writing any.
extension Tool {
    /// `calculate`: evaluates an arithmetic expression with `Calculator` (no code execution).
    package static func calculate() -> Tool {
        let expression = JSONValue.object([
            .init("type", .string("string")), .init("minLength", .number(1)), .init("maxLength", .number(200)),
            .init("description", .string("Arithmetic such as (2 + 3) * 4, sqrt(2) or 2 ^ 10")),
        ])
        let document = objectSchema([.init("expression", expression)], required: ["expression"])
        // An empty expression is never valid, so the grammar does not offer one.
        let shape = JSONSchema.Shape.object(.init(properties: [.init("expression", .string(minLength: 1, maxLength: 200))],
                                                  required: ["expression"]))
        return Tool(checked: "calculate", description: "Evaluate an arithmetic expression and return the number.",
                    parameters: JSONSchema(shape: shape, document: document)) { arguments in
            guard case .string(let text)? = arguments["expression"] else {
                throw EngineError.toolFailed(name: "calculate", reason: "no expression")
            }
            return Calculator.format(try Calculator().evaluate(text))
        }
    }

    /// `current_time`: the date, time and weekday, in the device's time zone or a named one.
    /// `now` is injectable so tests (and replays) get a fixed time.
    package static func currentTime(now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current) -> Tool {
        let zone = JSONValue.object([
            .init("type", .string("string")), .init("maxLength", .number(64)),
            .init("description", .string("IANA time zone such as Europe/Lisbon; the device's own when left out")),
        ])
        let document = objectSchema([.init("timezone", zone)], required: [])
        let shape = JSONSchema.Shape.object(.init(properties: [.init("timezone", .string(minLength: 0, maxLength: 64))], required: []))
        return Tool(checked: "current_time", description: "Get the current date, time and weekday.",
                    parameters: JSONSchema(shape: shape, document: document)) { arguments in
            var zone = timeZone
            if case .string(let name)? = arguments["timezone"], !name.isEmpty {
                guard let named = TimeZone(identifier: name) else {
                    throw EngineError.toolFailed(name: "current_time", reason: "unknown time zone \(name)")
                }
                zone = named
            }
            let date = now()
            let iso = ISO8601DateFormatter()
            iso.timeZone = zone
            iso.formatOptions = [.withInternetDateTime]
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            calendar.locale = Locale(identifier: "en_US_POSIX")
            let weekday = calendar.weekdaySymbols[calendar.component(.weekday, from: date) - 1]
            return JSONValue.object([
                .init("time", .string(iso.string(from: date))), .init("weekday", .string(weekday)),
                .init("timezone", .string(zone.identifier)),
            ]).serialized
        }
    }

    private static func objectSchema(_ properties: [JSONValue.Member], required: [String]) -> JSONValue {
        .object([
            .init("type", .string("object")), .init("properties", .object(properties)),
            .init("required", .array(required.map(JSONValue.string))),
        ])
    }
}
