import StructuredOutput

/// Ollama's `options` object read into `GenerationSettings`: the sampling and length fields
/// the engine has, each checked for type and range (a 400 naming `options.<field>`). Fields
/// for hardware and samplers this engine does not have (`num_gpu`, `num_thread`, `mirostat`,
/// `tfs_z`, …) are ignored, as Ollama ignores options a runner does not use; `num_ctx` is
/// ignored because the server's sessions share one context length, set when it starts.
package enum OllamaOptions {
    package static func settings(_ value: JSONValue?) throws(ServerError) -> GenerationSettings {
        var s = GenerationSettings()
        guard let value, !value.isNull else { return s }
        guard case .object = value else { throw .invalidRequest("'options' must be an object", param: "options") }
        if let t = try number(value, "temperature") {
            guard t >= 0 else { throw invalid("temperature", "must be at least 0") }
            s.temperature = Float(t)
        }
        if let p = try number(value, "top_p") {
            guard p > 0 && p <= 1 else { throw invalid("top_p", "must be in (0, 1]") }
            s.topP = Float(p)
        }
        if let k = try integer(value, "top_k") {
            guard k >= 0 else { throw invalid("top_k", "must be at least 0 (0 turns it off)") }
            s.topK = k
        }
        if let p = try number(value, "min_p") {
            guard (0...1).contains(p) else { throw invalid("min_p", "must be between 0 and 1") }
            s.minP = Float(p)
        }
        if let r = try number(value, "repeat_penalty") {
            guard r > 0 else { throw invalid("repeat_penalty", "must be above 0 (1 turns it off)") }
            s.repetitionPenalty = Float(r)
        }
        if let n = try integer(value, "repeat_last_n") {
            switch n {
            case -1: s.repetitionWindow = .wholeContext
            case 0...: s.repetitionWindow = .tokens(n)
            default: throw invalid("repeat_last_n", "must be -1 (the whole context) or at least 0")
            }
        }
        // A negative seed is Ollama's (and llama.cpp's) "pick one at random", the default here.
        if let seed = try integer(value, "seed"), seed >= 0 { s.seed = UInt64(seed) }
        if let n = try integer(value, "num_predict") {
            switch n {
            case -2, -1: s.length = .untilContextFull
            case 1...: s.length = .tokens(n)
            default: throw invalid("num_predict", "must be at least 1, or -1 / -2 (until the context is full)")
            }
        }
        switch value["stop"] {
        case nil, .null?: break
        case .string(let stop)?: s.stop = [stop]
        case .array(let items)?:
            let stops = items.compactMap(\.string)
            guard stops.count == items.count else { throw invalid("stop", "must be a string or an array of strings") }
            s.stop = stops.filter { !$0.isEmpty }
        default: throw invalid("stop", "must be a string or an array of strings")
        }
        if let n = try integer(value, "num_ctx"), n < 1 { throw invalid("num_ctx", "must be at least 1") }
        return s
    }

    private static func number(_ options: JSONValue, _ key: String) throws(ServerError) -> Double? {
        guard let value = options[key], !value.isNull else { return nil }
        guard let n = value.number, n.isFinite else { throw invalid(key, "must be a number") }
        return n
    }

    private static func integer(_ options: JSONValue, _ key: String) throws(ServerError) -> Int? {
        guard let value = options[key], !value.isNull else { return nil }
        guard let n = value.integer else { throw invalid(key, "must be an integer") }
        return n
    }

    private static func invalid(_ key: String, _ what: String) -> ServerError {
        .invalidRequest("options.\(key) \(what)", param: "options.\(key)")
    }
}
