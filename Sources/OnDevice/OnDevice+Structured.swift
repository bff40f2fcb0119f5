import Engine
import Foundation
import Tokenizers

/// A JSON document generated to a schema.
public struct StructuredResult: Sendable, Equatable {
    /// The document: always valid against the schema it was generated for.
    public var json: String
    public var metrics: TextMetrics
}

extension OnDevice {
    /// Generates a JSON document that is valid against `schema` (a JSON Schema as text: objects,
    /// arrays, enums, strings, numbers, integers, booleans, required and optional fields,
    /// nesting). Every token is constrained by the schema's grammar, so the output always parses
    /// and validates; the prompt supplies the content.
    public func generate(_ prompt: String, schema: String, options: TextOptions = TextOptions()) async throws -> StructuredResult {
        let parsed: JSONSchema
        do { parsed = try JSONSchema(json: schema) } catch { throw OnDeviceError.invalidArgument("JSON Schema: \(error)") }
        let result = try await collect(structuredStream(prompt, schema: parsed, schemaText: schema, options: options))
        return StructuredResult(json: result.text, metrics: result.metrics)
    }

    /// `generate(_:schema:)` decoded into `T` (whose `Decodable` shape should match the schema).
    public func generate<T: Decodable>(_ prompt: String, schema: String, as type: T.Type,
                                       options: TextOptions = TextOptions()) async throws -> T {
        let r = try await generate(prompt, schema: schema, options: options)
        do throws(EngineError) { return try decode(r.json, as: type) } catch { throw OnDeviceError(error) }
    }

    /// Streaming structured generation: the JSON text as it grows, then the whole document.
    public func generateStream(_ prompt: String, schema: String, options: TextOptions = TextOptions())
        -> AsyncThrowingStream<TextEvent, Error> {
        do {
            return structuredStream(prompt, schema: try JSONSchema(json: schema), schemaText: schema, options: options)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: OnDeviceError.invalidArgument("JSON Schema: \(error)")) }
        }
    }

    private func structuredStream(_ prompt: String, schema: JSONSchema, schemaText: String, options: TextOptions)
        -> AsyncThrowingStream<TextEvent, Error> {
        textStream { session, context in
            let model = session.model
            let instruction = "\(prompt)\n\nReply with only a JSON document that follows this JSON Schema:\n\(schemaText)"
            let ids: [Int32]
            if let template = try? model.chatTemplate() {
                ids = model.tokenizer.encode(try template.prompt(messages: [ChatMessage(role: .user, content: instruction)], addGenerationPrompt: true))
            } else {
                ids = model.tokenizer.encode(instruction + "\n\nJSON:\n", addBOS: nil, parseSpecial: false)
            }
            guard ids.count <= session.contextLength - TextRunner.minimumGenerationRoom else {
                throw OnDeviceError.inputTooLong(tokens: ids.count, limit: session.contextLength - TextRunner.minimumGenerationRoom)
            }
            do throws(EngineError) {
                let (json, r) = try generateStructured(session: session, prompt: ids, schema: schema, options: options.generation,
                                                       isCancelled: { [context] in context.isCancelled })
                context.partial(json)
                var metrics = TextMetrics()
                metrics.add(r.metrics, first: true)
                return TextResult(text: json, metrics: metrics)
            } catch {
                throw OnDeviceError(error)
            }
        }
    }
}
