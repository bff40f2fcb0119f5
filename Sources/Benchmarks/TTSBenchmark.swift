import Foundation
import Models

/// `Benchmarks tts <voice.onnx> <sentences.jsonl> [--threads 1,2] [--runs N]`: real-time factor
/// of a Piper voice on each line's `phoneme_ids` (the golden `tts/piper-joe.jsonl` has them).
struct TTSBenchmark {
    var voicePath: String
    var sentencesPath: String
    var threadCounts = [1, 2]
    var runs = 3

    init(arguments: ArraySlice<String>) throws {
        var positional: [String] = []
        var rest = arguments
        while let argument = rest.popFirst() {
            switch argument {
            case "--threads":
                threadCounts = (rest.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                guard !threadCounts.isEmpty else { throw BenchmarkArgumentError("--threads needs counts like 1,2") }
            case "--runs":
                guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw BenchmarkArgumentError("--runs needs a positive count") }
                runs = value
            default: positional.append(argument)
            }
        }
        guard positional.count == 2 else { throw BenchmarkArgumentError("tts needs <voice.onnx> <sentences.jsonl>") }
        voicePath = positional[0]
        sentencesPath = positional[1]
    }

    func run() throws {
        let voice = try PiperVoiceModel.load(onnx: URL(fileURLWithPath: voicePath))
        let lines = try String(contentsOfFile: sentencesPath, encoding: .utf8).split(separator: "\n")
        print("machine: \(Machine.summary), load \(Machine.loadAverage)")
        print("voice: \((voicePath as NSString).lastPathComponent), \(voice.residentBytes / 1_048_576) MiB resident, f32")
        for line in lines {
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            let ids = (record["phoneme_ids"] as? [NSNumber])?.map(\.intValue) ?? []
            let name = record["id"] as? String ?? "?"
            for threads in threadCounts {
                let result = try PiperBenchmark(threads: threads, repetitions: runs).run(voice, phonemeIDs: ids)
                let best = result.runSeconds.min() ?? 0
                print(String(format: "%@: %d ids, %.3f s audio, threads %d: best %.3f s, RTF %.4f", name, ids.count,
                             result.audioSeconds, threads, best, result.realTimeFactor))
            }
        }
    }
}

struct BenchmarkArgumentError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
