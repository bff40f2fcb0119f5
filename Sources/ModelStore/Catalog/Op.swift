/// The ops an app can call. The op → default model mapping lives here and only here: prefetch,
/// the runtime's first-use download and the CLI all ask `defaultModelId`.
package enum Op: String, Sendable, Equatable, Codable, CaseIterable {
    case generate, chat, summarize, translate, proofread, transcribe, vad, embed, search, speak, classify, faces

    /// Catalog id of the model this op runs on unless the caller picks another. The text ops'
    /// choices come from `Benchmarks eval` (README, "Which model for which op"): Qwen 2.5
    /// translates (chrF 46.5 against SmolLM2's 15.5) and calls tools (10 of 10 first calls right
    /// against 0); SmolLM2, about three times faster per token, does the rest.
    package var defaultModelId: String {
        switch self {
        case .translate: return Self.toolCallingModelId
        case .generate, .chat, .summarize, .proofread: return "smollm2-135m-instruct-q4_1"
        case .transcribe: return "whisper-tiny.en-ct2"
        case .vad: return "silero-vad-v6"
        case .embed, .search: return "all-minilm-l6-v2"
        case .speak: return "piper-en_US-joe-medium"
        case .classify: return "efficientnet-lite0"
        case .faces: return "mediapipe-face-detection-short"
        }
    }

    /// The model a chat with tools runs on unless the caller picks another.
    package static let toolCallingModelId = "qwen2.5-coder-0.5b-instruct-q4_k_m"

    /// Parses an op name as written in `ondevice.json` or on the command line.
    package static func named(_ name: String) throws(StoreError) -> Op {
        guard let op = Op(rawValue: name) else { throw .unknownOp(name: name) }
        return op
    }

    /// Distinct default model ids for a set of ops, in first-mention order.
    package static func modelIds(for ops: [Op]) -> [String] {
        var seen = Set<String>()
        return ops.map(\.defaultModelId).filter { seen.insert($0).inserted }
    }
}
