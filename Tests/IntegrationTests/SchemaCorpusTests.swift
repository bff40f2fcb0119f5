import Foundation
import StructuredOutput
import TestSupport
import Testing
import TextGeneration
import Tokenizers

/// The schema corpus on real models. `Fixtures/schema-corpus` holds hand-written schemas for
/// every supported keyword and Pydantic's schemas for nested models (written by
/// scripts/make-schema-corpus.py); `requests.json` gives each its request (else the schema's
/// description) and the model (SmolLM2-135M unless it says Qwen2.5-0.5B). Each schema is run
/// greedy and with sampled seeds; every output must parse, satisfy our validator, and satisfy
/// Python's `jsonschema` with format checking (scripts/check-json-schema.py), which fails the
/// test when Python or jsonschema is missing.
@Suite(.serialized) struct SchemaCorpusTests {
    struct Entry {
        let name: String
        let document: JSONValue
        let request: String
        let model: String
    }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let directory = repository.appendingPathComponent("Tests/IntegrationTests/Fixtures/schema-corpus")

    static func entries() throws -> [Entry] {
        let requests = try JSONValue(parsing: String(decoding: Data(contentsOf: directory.appendingPathComponent("requests.json")), as: UTF8.self))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && $0 != "requests.json" }.sorted()
        return try names.map { name in
            let document = try JSONValue(parsing: String(decoding: Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self))
            // A recursive Pydantic model's root is a $ref to the definition holding its docstring.
            let target = document["$ref"]?.string.flatMap { $0.split(separator: "/").last }.flatMap { document["$defs"]?[String($0)] }
            let request = requests[name]?["request"]?.string ?? document["description"]?.string ?? target?["description"]?.string
            return Entry(name: name, document: document, request: try #require(request, "\(name) has no request"),
                         model: requests[name]?["model"]?.string == "qwen2.5" ? TestModels.qwen25 : TestModels.smolLM2)
        }
    }

    /// Greedy, then sampled seeds: three runs on SmolLM2, two on the slower Qwen.
    static func runs(_ model: String) -> [SamplingParameters] {
        var sampled = SamplingParameters()
        sampled.temperature = 0.8
        return [.greedy] + (model == TestModels.qwen25 ? [UInt64(1)] : [1, 2]).map { seed in
            var s = sampled
            s.seed = seed
            return s
        }
    }

    @Test func `every corpus schema gives JSON valid against it on real models, greedy and sampled`() throws {
        let entries = try Self.entries()
        try #require(entries.count >= 50, "the corpus has \(entries.count) schemas")
        var models: [String: LanguageModel] = [:]
        var records: [String] = []
        let clock = ContinuousClock()
        let started = clock.now
        for e in entries {
            let schema: JSONSchema
            do { schema = try JSONSchema(document: e.document) } catch {
                Issue.record("\(e.name): \(error)")
                continue
            }
            if models[e.model] == nil {
                let path = try #require(TestModels.path(e.model), "model \(e.model) not installed: run scripts/setup.sh")
                models[e.model] = try LanguageModel(path: path)
            }
            let model = models[e.model]!
            let grammar = try Grammar(schema: schema)
            let shortest = grammar.minimumBytesToFinish(grammar.initialState)
            let messages = [ChatMessage(role: .system, content: schema.promptInstruction), ChatMessage(role: .user, content: e.request)]
            let prompt = model.tokenizer.encode(try model.chatTemplate().render(messages: messages, addGenerationPrompt: true),
                                                addBOS: nil, parseSpecial: true)
            // One session per schema: its prompt is evaluated once for all runs.
            let session = Session(model: model, contextLength: 2048, threads: 2)
            for sampling in Self.runs(e.model) {
                var options = GenerationOptions()
                options.sampling = sampling
                options.maxTokens = max(96, shortest + 48)
                let t0 = clock.now
                let (json, result) = try generateStructured(session: session, prompt: prompt, schema: schema, options: options)
                let seconds = Self.seconds(clock.now - t0)
                print("[corpus] \(e.name) \(sampling.temperature == 0 ? "greedy" : "seed \(sampling.seed)") | "
                      + "\(result.generatedIds.count) tokens, \(result.metrics.finishReason.rawValue), "
                      + String(format: "%.1f s", seconds) + " | \(json)")
                #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) != nil,
                        "\(e.name): Foundation cannot parse \(json)")
                #expect(throws: Never.self, "\(e.name): \(json)") { try schema.validate(json: json) }
                let record = JSONValue.object([.init("name", .string(e.name)), .init("schema", e.document), .init("output", .string(json))])
                records.append(record.serialized)
            }
        }
        print("[corpus] \(entries.count) schemas, \(records.count) documents in " + String(format: "%.0f s", Self.seconds(clock.now - started)))
        let (status, output) = try JSONSchemaChecker.check(records: records, label: "schema-corpus")
        print(output)
        #expect(status == 0, "jsonschema refused documents or could not run (status \(status)):\n\(output)")
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }

}
