import Foundation
import OnDevice
import TestSupport

/// `Benchmarks eval`: each instruct model on the text-op evaluation (`TextEvaluation`) through
/// the public API, greedy, two threads — tool calls, structured output, translation and
/// summaries — with the seconds each part took. The op defaults are chosen from its table.
struct TextEvalBenchmark {
    var models = ["smollm2-135m-instruct-q4_1", "gemma3-270m-q4_k_m", "qwen2.5-coder-0.5b-instruct-q4_k_m"]
    var threads = 2
    var parts: Set<String> = ["tools", "structured", "translate", "summarize"]
    var json = false
    var verbose = false

    init(arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            switch flag {
            case "--models": models = try Self.value(flag, &rest).split(separator: ",").map(String.init)
            case "--threads":
                guard let n = Int(try Self.value(flag, &rest)), n > 0 else { throw BenchmarkError("eval: --threads takes a positive number") }
                threads = n
            case "--only": parts = Set(try Self.value(flag, &rest).split(separator: ",").map(String.init))
            case "--json": json = true
            case "--verbose": verbose = true
            default: throw BenchmarkError("eval: unknown option \(flag)")
            }
        }
        let known: Set = ["tools", "structured", "translate", "summarize"]
        if let bad = parts.subtracting(known).first { throw BenchmarkError("eval: unknown part \(bad) (parts: \(known.sorted().joined(separator: ", ")))") }
    }

    private static func value(_ flag: String, _ rest: inout ArraySlice<String>) throws -> String {
        guard let v = rest.popFirst() else { throw BenchmarkError("eval: \(flag) needs a value") }
        return v
    }

    struct Report: Codable {
        var model: String
        var toolFirstCallRight: Int?
        var toolAnswered: Int?
        var toolQuestions: Int?
        var toolSeconds: Double?
        var structuredValid: Int?
        var structuredRight: Int?
        var structuredItems: Int?
        var structuredSeconds: Double?
        var chrF: [String: Double]?
        var translateSeconds: Double?
        var translationSamples: [String: String]?
        var summaryFactsKept: Int?
        var summaryFacts: Int?
        var summaryWordRatio: Double?
        var summarizeSeconds: Double?
        var summarySample: String?
        var failures: [String: String] = [:]
    }

    static var greedy: TextOptions {
        var o = TextOptions.greedy
        o.maxTokens = 96
        return o
    }

    func run() async throws {
        var reports: [Report] = []
        for model in models {
            var configuration = OnDeviceAI.Configuration()
            configuration.textModel = model
            configuration.threads = threads
            let ai = OnDeviceAI(configuration: configuration)
            var report = Report(model: model)
            // A part the model cannot run (a base model has no chat template) is reported, not fatal.
            for part in ["tools", "structured", "translate", "summarize"] where parts.contains(part) {
                do {
                    switch part {
                    case "tools": try await tools(ai, &report)
                    case "structured": try await structured(ai, model, &report)
                    case "translate": try await translate(ai, &report)
                    default: try await summarize(ai, &report)
                    }
                } catch {
                    report.failures[part] = "\(error)"
                }
            }
            reports.append(report)
            if !json { print(Self.text(report)) }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(reports), as: UTF8.self))
        } else {
            print("machine: \(Machine.summary); threads \(threads); greedy, at most 96 tokens per reply")
        }
    }

    private func log(_ line: @autoclosure () -> String) {
        if verbose { FileHandle.standardError.write(Data((line() + "\n").utf8)) }
    }

    /// Each arithmetic question with the built-in tools: is the first call a `calculate` whose
    /// result is right, and does the answer then state that number in prose.
    private func tools(_ ai: OnDeviceAI, _ report: inout Report) async throws {
        let start = Date()
        var first = 0, answered = 0
        for (question, expected) in TextEvaluation.arithmetic {
            let r = try await ai.chat([.user(question)], tools: Tool.builtIns, options: Self.greedy)
            let right = { (c: ToolInvocation) in c.name == "calculate" && TextEvaluation.isNumber(c.result, expected) }
            if let call = r.toolCalls.first, right(call) { first += 1 }
            if r.toolCalls.contains(where: right) && TextEvaluation.statesNumber(r.text, expected) { answered += 1 }
            log("[tools] \(question) | \(r.toolCalls.map { "\($0.name ?? "?")(\($0.arguments?.json ?? "")) → \($0.result)" }) | \(r.text)")
        }
        report.toolFirstCallRight = first
        report.toolAnswered = answered
        report.toolQuestions = TextEvaluation.arithmetic.count
        report.toolSeconds = Date().timeIntervalSince(start)
    }

    private func structured(_ ai: OnDeviceAI, _ model: String, _ report: inout Report) async throws {
        let start = Date()
        var valid = 0, right = 0
        for item in TextEvaluation.structured {
            do {
                let r = try await ai.textModel(model).generate(item.prompt, schema: item.schema, options: Self.greedy)
                valid += 1
                if item.isRight(r.json) { right += 1 }
                log("[structured] \(item.prompt) | \(r.json)")
            } catch let error as OnDeviceError {
                log("[structured] \(item.prompt) | \(error)")
            }
        }
        report.structuredValid = valid
        report.structuredRight = right
        report.structuredItems = TextEvaluation.structured.count
        report.structuredSeconds = Date().timeIntervalSince(start)
    }

    private func translate(_ ai: OnDeviceAI, _ report: inout Report) async throws {
        let start = Date()
        var scores: [String: Double] = [:], samples: [String: String] = [:]
        var allHyp: [String] = [], allRef: [String] = []
        for language in TextEvaluation.translationLanguages {
            var hyp: [String] = [], ref: [String] = []
            for (english, references) in TextEvaluation.translations {
                let r = try await ai.translate(english, to: language, options: Self.greedy)
                hyp.append(r.text.trimmingCharacters(in: .whitespacesAndNewlines))
                ref.append(references[language]!)
                log("[translate] \(language) | \(english) | \(r.text)")
            }
            scores[language] = TextEvaluation.chrF(hypotheses: hyp, references: ref)
            samples[language] = hyp.first
            allHyp += hyp
            allRef += ref
        }
        scores["all"] = TextEvaluation.chrF(hypotheses: allHyp, references: allRef)
        report.chrF = scores
        report.translationSamples = samples
        report.translateSeconds = Date().timeIntervalSince(start)
    }

    private func summarize(_ ai: OnDeviceAI, _ report: inout Report) async throws {
        let start = Date()
        var kept = 0, facts = 0, ratios: [Double] = []
        for item in TextEvaluation.summaries {
            let r = try await ai.summarize(item.text, options: Self.greedy)
            kept += item.factsKept(r.text)
            facts += item.facts.count
            ratios.append(Double(TextEvaluation.wordCount(r.text)) / Double(TextEvaluation.wordCount(item.text)))
            if report.summarySample == nil { report.summarySample = r.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            log("[summarize] \(r.text)")
        }
        report.summaryFactsKept = kept
        report.summaryFacts = facts
        report.summaryWordRatio = ratios.reduce(0, +) / Double(ratios.count)
        report.summarizeSeconds = Date().timeIntervalSince(start)
    }

    static func text(_ r: Report) -> String {
        var lines = ["\(r.model):"]
        for (part, failure) in r.failures.sorted(by: { $0.key < $1.key }) { lines.append("  \(part): cannot run: \(failure)") }
        if let q = r.toolQuestions {
            lines.append("  tools: first call right \(r.toolFirstCallRight!)/\(q), answered through a right call \(r.toolAnswered!)/\(q)"
                         + String(format: " (%.0f s)", r.toolSeconds!))
        }
        if let n = r.structuredItems {
            lines.append("  structured: valid \(r.structuredValid!)/\(n), right \(r.structuredRight!)/\(n)" + String(format: " (%.0f s)", r.structuredSeconds!))
        }
        if let c = r.chrF {
            let per = TextEvaluation.translationLanguages.map { String(format: "%@ %.1f", $0, c[$0]!) }.joined(separator: ", ")
            lines.append(String(format: "  translate: chrF %.1f (%@)", c["all"]!, per) + String(format: " (%.0f s)", r.translateSeconds!))
            for language in TextEvaluation.translationLanguages { lines.append("    \(language): \(r.translationSamples![language]!)") }
        }
        if let f = r.summaryFacts {
            lines.append(String(format: "  summarize: facts kept %d/%d, length %.0f%% of the passage (%.0f s)",
                                r.summaryFactsKept!, f, 100 * r.summaryWordRatio!, r.summarizeSeconds!))
            lines.append("    \(r.summarySample!.replacingOccurrences(of: "\n", with: " "))")
        }
        return lines.joined(separator: "\n")
    }
}
