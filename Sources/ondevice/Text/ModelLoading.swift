import Foundation
import OnDevice

/// Options every model-running command accepts.
enum RuntimeOptions {
    static let valued: Set<String> = ["model", "threads", "context"]
}

/// Reads a text argument: `-` means standard input.
func readTextArgument(_ s: String) -> String {
    guard s == "-" else { return s }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    return String(decoding: data, as: UTF8.self)
}

/// Writes text to stdout immediately (streaming output is not line-buffered).
func writeOut(_ s: String) {
    FileHandle.standardOutput.write(Data(s.utf8))
}

extension TextMetrics {
    var json: [String: Any] {
        [
            "prompt_tokens": promptTokens, "reused_prompt_tokens": cachedPromptTokens,
            "completion_tokens": completionTokens, "time_to_first_token": timeToFirstToken,
            "prompt_tokens_per_second": promptTokensPerSecond, "generation_tokens_per_second": tokensPerSecond,
            "finish_reason": finishReason.rawValue,
        ]
    }
}
