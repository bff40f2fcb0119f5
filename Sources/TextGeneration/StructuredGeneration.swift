import Foundation
import StructuredOutput
import Tools

/// Generates a JSON document valid against `schema`: every token is constrained by the
/// schema's grammar, the document always finishes within `options.maxTokens` (and the
/// context), and generation stops the moment it is complete. Stop strings are ignored (they
/// could cut the document).
///
/// The prompt should ask for the document (see `JSONSchema.promptInstruction`); the grammar
/// guarantees validity, the prompt gives the content.
package func generateStructured(session: Session, prompt: [Int32], schema: JSONSchema, options: GenerationOptions,
                                grammarOptions: Grammar.Options = Grammar.Options(),
                                isCancelled: () -> Bool = { false }) throws(EngineError) -> (json: String, result: GenerationResult) {
    let plan = try structuredPlan(session: session, prompt: prompt, schema: schema, options: options, grammarOptions: grammarOptions)
    let outcome = try TextCore.run(plan, on: session, isCancelled: isCancelled)
    if outcome.isCancelled { throw .cancelled }
    return (outcome.content, outcome.result)
}

/// `generateStructured`, decoded into `T` (whose `Decodable` shape should match the schema).
package func generateStructured<T: Decodable>(session: Session, prompt: [Int32], schema: JSONSchema, as type: T.Type,
                                              options: GenerationOptions) throws(EngineError) -> (value: T, result: GenerationResult) {
    let (json, result) = try generateStructured(session: session, prompt: prompt, schema: schema, options: options)
    return (try decode(json, as: type), result)
}

/// A plan for the core from prompt ids as given (no template, no overflow policy: the primitive
/// under the doors, for callers that build their own prompts).
private func structuredPlan(session: Session, prompt: [Int32], schema: JSONSchema, options: GenerationOptions,
                            grammarOptions: Grammar.Options) throws(EngineError) -> TextPlan {
    guard prompt.count <= session.contextLength else {
        throw .contextOverflow(tokens: prompt.count, contextLength: session.contextLength)
    }
    var o = options
    o.stop = []  // a stop string could cut the document
    return TextPlan(prompt: prompt, options: o, output: .schema(schema), tools: ToolRegistry(), callTools: ToolRegistry(),
                    grammarOptions: grammarOptions)
}

extension JSONSchema {
    /// A system-prompt sentence asking for a document of this schema, with the schema itself.
    package var promptInstruction: String {
        "Reply with only a JSON document, no other text. It must follow this JSON Schema:\n\(document.serialized)"
    }
}
