import Tokenizers

/// How a summary should read.
public enum SummaryStyle: String, Sendable, Equatable, CaseIterable {
    /// A short paragraph.
    case paragraph
    /// A few bullet points.
    case bullets

    var instruction: String {
        switch self {
        case .paragraph: "Summarize the following text in a few sentences. Keep only the main points."
        case .bullets: "Summarize the following text as a short list of bullet points. Keep only the main points."
        }
    }
}

extension OnDeviceAI {
    /// Summarizes `text` of any length: text longer than the context is split into chunks by
    /// tokens, each chunk summarized, and the partial summaries combined (map-reduce).
    public func summarize(_ text: String, style: SummaryStyle = .paragraph, options: TextOptions = TextOptions()) async throws -> TextResult {
        try await collect(summarizeStream(text, style: style, options: options))
    }

    /// Streaming `summarize`: progress events for each chunk, partial text of the final summary.
    public func summarizeStream(_ text: String, style: SummaryStyle = .paragraph, options: TextOptions = TextOptions())
        -> AsyncThrowingStream<TextEvent, Error> {
        textStream { session, context in
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw OnDeviceError.invalidArgument("nothing to summarize")
            }
            return try Summarizer(runner: TextRunner(session: session, context: context, options: options), style: style).run(text)
        }
    }

    /// Translates `text` into `language` (a language name such as "French"); `source` names
    /// the input's language when known.
    public func translate(_ text: String, to language: String, from source: String? = nil,
                          options: TextOptions = TextOptions()) async throws -> TextResult {
        try await collect(translateStream(text, to: language, from: source, options: options))
    }

    /// Streaming `translate`.
    public func translateStream(_ text: String, to language: String, from source: String? = nil,
                                options: TextOptions = TextOptions()) -> AsyncThrowingStream<TextEvent, Error> {
        let from = source.map { " from \($0)" } ?? ""
        let recipe = PromptRecipe(system: nil,
                                  instruction: "Translate the following text\(from) into \(language). Reply with the translation only.",
                                  input: text, answerLead: "\(language) translation:")
        return single(recipe, options: options, model: configuration.textModelId(for: .translate))
    }

    /// Corrects spelling, grammar and punctuation, keeping the meaning and wording otherwise.
    public func proofread(_ text: String, options: TextOptions = TextOptions()) async throws -> TextResult {
        try await collect(proofreadStream(text, options: options))
    }

    /// Streaming `proofread`.
    public func proofreadStream(_ text: String, options: TextOptions = TextOptions()) -> AsyncThrowingStream<TextEvent, Error> {
        let recipe = PromptRecipe(system: nil,
                                  instruction: "Proofread the following text. Fix spelling, grammar and punctuation; keep its meaning and wording otherwise. Reply with the corrected text only.",
                                  input: text, answerLead: "Corrected text:")
        return single(recipe, options: options)
    }

    /// A one-call op over a recipe.
    private func single(_ recipe: PromptRecipe, options: TextOptions, model: String? = nil) -> AsyncThrowingStream<TextEvent, Error> {
        textStream(model: model) { session, context in
            guard !recipe.input.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw OnDeviceError.invalidArgument("the text is empty")
            }
            var result = TextResult(try TextRunner(session: session, context: context, options: options).run(recipe, stream: true))
            result.text = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
            return result
        }
    }
}

import Foundation
