/// Generation settings as a door reads them off its wire, before they meet the engine: every
/// field is optional (absent keeps the engine's default). The OpenAI and Ollama doors spell
/// these differently (`max_tokens` vs `options.num_predict`); both end in the same
/// `GenerationOptions` through `applied(to:contextLength:)` (in `TextRequest.swift`).
package struct GenerationSettings: Sendable, Equatable {
    /// How many tokens the reply may take.
    package enum Length: Sendable, Equatable {
        case tokens(Int)
        /// Until the session's context is full (Ollama's `num_predict` -1 and -2).
        case untilContextFull
    }

    /// How many recent tokens the repetition penalty looks at.
    package enum Window: Sendable, Equatable {
        case tokens(Int)
        /// The whole context (Ollama's `repeat_last_n: -1`).
        case wholeContext
    }

    package var temperature: Float?
    package var topP: Float?
    package var topK: Int?
    package var minP: Float?
    package var repetitionPenalty: Float?
    package var repetitionWindow: Window?
    package var seed: UInt64?
    package var length: Length?
    package var stop: [String]?

    package init() {}
}
