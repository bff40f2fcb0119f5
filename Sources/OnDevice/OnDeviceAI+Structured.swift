import Foundation
import StructuredOutput
import TextGeneration
import Tokenizers

/// A JSON document generated to a schema.
public struct StructuredResult: Sendable, Equatable {
    /// The document: always valid against the schema it was generated for.
    public var json: String
    public var metrics: TextMetrics
}

extension TextModel {
    /// Generates a JSON document that is valid against `schema` (a JSON Schema as text: objects,
    /// arrays, enums, strings, numbers, integers, booleans, required and optional fields,
    /// nesting). Every token is constrained by the schema's grammar, so the output always parses
    /// and validates; the prompt supplies the content.
    public func generate(_ prompt: String, schema: String, options: TextOptions = TextOptions()) async throws -> StructuredResult {
        let result = try await ai.collect(generateStream(prompt, schema: schema, options: options))
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
        let parsed: JSONSchema
        do { parsed = try JSONSchema(json: schema) } catch {
            return AsyncThrowingStream { $0.finish(throwing: OnDeviceError.invalidArgument("JSON Schema: \(error)")) }
        }
        return ai.textStream(model: id, adapters: options.adapters) { session, context in
            TextResult(try TextRunner(session: session, context: context, options: options)
                .generate(.user(prompt), output: .schema(parsed), stream: true))
        }
    }
}

extension OnDeviceAI {
    /// `TextModel.generate(_:schema:options:)` on the configured text model.
    public func generate(_ prompt: String, schema: String, options: TextOptions = TextOptions()) async throws -> StructuredResult {
        try await textModel.generate(prompt, schema: schema, options: options)
    }

    /// `TextModel.generate(_:schema:as:options:)` on the configured text model.
    public func generate<T: Decodable>(_ prompt: String, schema: String, as type: T.Type,
                                       options: TextOptions = TextOptions()) async throws -> T {
        try await textModel.generate(prompt, schema: schema, as: type, options: options)
    }

    /// `TextModel.generateStream(_:schema:options:)` on the configured text model.
    public func generateStream(_ prompt: String, schema: String, options: TextOptions = TextOptions())
        -> AsyncThrowingStream<TextEvent, Error> {
        textModel.generateStream(prompt, schema: schema, options: options)
    }
}
