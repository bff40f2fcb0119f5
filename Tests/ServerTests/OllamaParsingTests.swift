import OnDevice
import Server
import StructuredOutput
import Testing
import TextGeneration

/// Ollama's request fields read into the shared generation settings, offline: keep-alive
/// durations, `options`, model names.
struct OllamaParsingTests {
    static func keepAlive(_ json: String) throws -> OllamaKeepAlive? {
        try OllamaKeepAlive(JSONValue(parsing: json))
    }

    @Test func `keep_alive durations read as seconds with Ollama's signs`() throws {
        let cases: [(String, Double)] = [
            ("\"5m\"", 300), ("\"1h30m\"", 5400), ("\"90s\"", 90), ("\"1.5h\"", 5400), ("\"250ms\"", 0.25),
            ("\"2h45m30.5s\"", 9930.5), ("\"0\"", 0), ("\"0s\"", 0), ("\"300\"", 300), ("\"-1m\"", -1), ("\"-1\"", -1),
            ("300", 300), ("0", 0), ("-1", -1), ("-42.5", -1), ("2.5", 2.5), ("\"+10m\"", 600),
        ]
        for (json, seconds) in cases {
            #expect(try Self.keepAlive(json)?.seconds == seconds, "\(json)")
        }
        #expect(try Self.keepAlive("0")?.unloadsNow == true)
        #expect(try Self.keepAlive("\"5m\"")?.unloadsNow == false)
        #expect(try Self.keepAlive("null") == nil)
        #expect(try OllamaKeepAlive(nil) == nil)
    }

    @Test func `a keep_alive that is not a duration is a 400 naming it`() throws {
        for json in ["\"5 minutes\"", "\"m\"", "\"5x\"", "\"\"", "\"1e3s\"", "\"--5m\"", "true", "[1]", "{}"] {
            #expect(throws: ServerError.self, "\(json)") { try Self.keepAlive(json) }
            do { _ = try Self.keepAlive(json) } catch {
                guard case .invalidRequest(_, let param) = error as? ServerError else { Issue.record("\(error)"); continue }
                #expect(param == "keep_alive")
            }
        }
    }

    @Test func `options map onto the engine's generation options`() throws {
        let body = try JSONValue(parsing: """
            {"temperature": 0, "top_p": 0.5, "top_k": 7, "min_p": 0.1, "repeat_penalty": 1.2, "repeat_last_n": 32,
             "seed": 42, "num_predict": 20, "stop": ["\\n", "END"], "num_ctx": 8192, "num_gpu": 99, "mirostat": 0}
            """)
        let settings = try OllamaOptions.settings(body)
        let options = settings.applied(to: TextOptions(), contextLength: 2048)
        #expect(options.temperature == 0 && options.topP == 0.5 && options.topK == 7)
        #expect(options.minP == Float(0.1) && options.repetitionPenalty == Float(1.2))
        #expect(options.repetitionWindow == 32 && options.seed == 42)
        #expect(options.maxTokens == 20 && options.stop == ["\n", "END"])
    }

    @Test func `absent options keep the engine's defaults, and -1 lengths mean the whole context`() throws {
        let defaults = TextOptions()
        #expect(try OllamaOptions.settings(nil).applied(to: defaults, contextLength: 2048) == defaults)
        #expect(try OllamaOptions.settings(JSONValue(parsing: "{}")).applied(to: defaults, contextLength: 2048) == defaults)
        let endless = try OllamaOptions.settings(JSONValue(parsing: "{\"num_predict\": -1, \"repeat_last_n\": -1, \"stop\": \"x\"}"))
        let options = endless.applied(to: defaults, contextLength: 2048)
        #expect(options.maxTokens == 2048 && options.repetitionWindow == 2048 && options.stop == ["x"])
        #expect(try OllamaOptions.settings(JSONValue(parsing: "{\"num_predict\": -2}")).length == .untilContextFull)
        #expect(try OllamaOptions.settings(JSONValue(parsing: "{\"seed\": -1}")).seed == nil)  // random, as by default
    }

    @Test func `a bad option is a 400 naming options dot field`() throws {
        let bad: [(String, String)] = [
            ("{\"temperature\": \"hot\"}", "options.temperature"), ("{\"temperature\": -1}", "options.temperature"),
            ("{\"top_p\": 0}", "options.top_p"), ("{\"top_k\": 1.5}", "options.top_k"), ("{\"top_k\": -3}", "options.top_k"),
            ("{\"num_predict\": 0}", "options.num_predict"), ("{\"num_predict\": -3}", "options.num_predict"),
            ("{\"stop\": [1]}", "options.stop"), ("{\"stop\": 3}", "options.stop"), ("{\"seed\": \"a\"}", "options.seed"),
            ("{\"repeat_last_n\": -2}", "options.repeat_last_n"), ("{\"num_ctx\": 0}", "options.num_ctx"),
            ("{\"min_p\": 2}", "options.min_p"), ("[1]", "options"),
        ]
        for (json, param) in bad {
            do {
                _ = try OllamaOptions.settings(JSONValue(parsing: json))
                Issue.record("\(json) was accepted")
            } catch {
                guard case .invalidRequest(_, let named) = error as? ServerError else { Issue.record("\(error)"); continue }
                #expect(named == param, "\(json)")
            }
        }
    }

    @Test func `Ollama model names drop the latest tag and keep any other`() {
        #expect(OllamaAPI.catalogId("smollm2-135m-instruct-q4_1:latest") == "smollm2-135m-instruct-q4_1")
        #expect(OllamaAPI.catalogId("smollm2-135m-instruct-q4_1") == "smollm2-135m-instruct-q4_1")
        #expect(OllamaAPI.catalogId("smollm2:135m") == "smollm2:135m")
    }
}
