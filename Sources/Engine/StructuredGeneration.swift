import Foundation

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
    let (constraint, o) = try structuredSetup(session: session, prompt: prompt, schema: schema, options: options,
                                              grammarOptions: grammarOptions)
    let result = try Generator(session: session, options: o).run(prompt: prompt, constraint: constraint, isCancelled: isCancelled)
    if result.metrics.finishReason == .cancelled { throw .cancelled }
    guard constraint.minimumBytesToFinish == 0 else { throw .incompleteOutput(result.metrics.finishReason) }
    // A top-level number may end with the space or newline that told the grammar it was done.
    return (String(result.text.reversed().drop { $0 == " " || $0 == "\n" }.reversed()), result)
}

/// `generateStructured`, decoded into `T` (whose `Decodable` shape should match the schema).
package func generateStructured<T: Decodable>(session: Session, prompt: [Int32], schema: JSONSchema, as type: T.Type,
                                              options: GenerationOptions) throws(EngineError) -> (value: T, result: GenerationResult) {
    let (json, result) = try generateStructured(session: session, prompt: prompt, schema: schema, options: options)
    return (try decode(json, as: type), result)
}

/// Streams a structured generation: token events (the JSON text as it grows), then
/// `.finished` whose `text` is the complete document. Cancelling ends the stream with a
/// `.finished` event whose finish reason is `.cancelled`; any other early end (which the budget
/// check makes unreachable in practice) throws `EngineError.incompleteOutput`. A bad schema or
/// too small a budget throws before anything is generated.
package func generateStructuredStream(session: Session, prompt: [Int32], schema: JSONSchema, options: GenerationOptions,
                                      grammarOptions: Grammar.Options = Grammar.Options())
    throws(EngineError) -> AsyncThrowingStream<GenerationEvent, Error> {
    let (constraint, o) = try structuredSetup(session: session, prompt: prompt, schema: schema, options: options,
                                              grammarOptions: grammarOptions)
    return generationStream(session: session, prompt: prompt, options: o, constraint: constraint) { result, constraint in
        let complete = (constraint as? GrammarConstraint)?.minimumBytesToFinish == 0
        if result.metrics.finishReason != .cancelled && !complete {
            throw EngineError.incompleteOutput(result.metrics.finishReason)
        }
    }
}

/// Decodes JSON text into `T` with Foundation's decoder; failures become `EngineError.decoding`.
package func decode<T: Decodable>(_ json: String, as type: T.Type) throws(EngineError) -> T {
    do {
        return try JSONDecoder().decode(type, from: Data(json.utf8))
    } catch {
        throw .decoding(type: String(describing: type), reason: String(describing: error))
    }
}

/// The grammar's constraint and the options to run it with, after checking that the document
/// fits in the budget at all.
private func structuredSetup(session: Session, prompt: [Int32], schema: JSONSchema, options: GenerationOptions,
                             grammarOptions: Grammar.Options) throws(EngineError) -> (GrammarConstraint, GenerationOptions) {
    guard prompt.count <= session.contextLength else {
        throw .contextOverflow(tokens: prompt.count, contextLength: session.contextLength)
    }
    let grammar = try Grammar(schema: schema, options: grammarOptions)
    let constraint = GrammarConstraint(grammar: grammar, tokenizer: session.model.tokenizer)
    let available = min(options.maxTokens, session.contextLength - prompt.count + 1)
    let needed = constraint.minimumBytesToFinish
    guard needed <= available else { throw .tokenBudgetTooSmall(needed: needed, available: available) }
    var o = options
    o.stop = []
    return (constraint, o)
}

extension JSONSchema {
    /// A system-prompt sentence asking for a document of this schema, with the schema itself.
    package var promptInstruction: String {
        "Reply with only a JSON document, no other text. It must follow this JSON Schema:\n\(document.serialized)"
    }
}
