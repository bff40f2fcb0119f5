import CLISupport
import Foundation

// `Benchmarks`: measurements printed with the machine they ran on, never timed assertions.
// Build in release: `swift run -c release Benchmarks download [--size MiB] [--runs N]`.

let usage = """
    usage: Benchmarks <benchmark> [options]

    benchmarks:
      download [--size MiB] [--runs N] [--json]
               model-store pull (with SHA-256 verification) against curl on the same loopback file
      tts <voice.onnx> <sentences.jsonl> [--threads 1,2] [--runs N]
               real-time factor of a Piper voice on each line's phoneme_ids
      eval [--models a,b] [--threads 2] [--only tools,structured,translate,summarize] [--json] [--verbose]
               instruct models on tool calls, structured output, translation and summaries
      batch <model.gguf> [--sequences 1,2,4,8,16] [--threads 2] [--prompt 32] [--tokens 64] [--rounds 2]
               decode throughput of N sequences at once, continuous batching on and off
      asr FILE... [--model ID] [--threads 1,2] [--beam N] [--repetitions R] [--fit-window S] [--json]
               Whisper's real-time factor per clip and thread count, encoder and decoder split out
      embed [--model E] [--threads N] [--sentences N] [--vectors N,N] [--precision int16|float32] [--json]
               embedding sentences/s, then exact and HNSW search latency and recall@10
      speak [--voice ID] [--threads N] [--repetitions R] [--json] [TEXT...]
               Piper's real-time factor from text, through a leased voice
      residency [--models ID,ID,...] [--budget BYTES] [--rounds N] [--context N] [--audio F.wav] [--json]
               installed models in turn under a budget below their sum: peak RSS, evictions, reloads
      photos [--images N] [--width W --height H] [--backend B] [--faces] [--ocr] [--in DIR]
               images/s of photo indexing, face detection + mesh and text reading at 1 and 2 threads
      soak [--seconds 60] [--clients 16] [--threads 2] [--warm-up 10] [--audio file.wav] [--json]
               mixed load on an in-process server: statuses, 5xx, latency, RSS, leaked leases
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "download": try await DownloadBenchmark(arguments: arguments.dropFirst()).run()
    case "batch": try BatchBenchmark(arguments: arguments.dropFirst()).run()
    case "eval": try await TextEvalBenchmark(arguments: arguments.dropFirst()).run()
    case "soak": try await SoakBenchmark(arguments: arguments.dropFirst()).run()
    case "tts": try TTSBenchmark(arguments: arguments.dropFirst()).run()
    case "asr": try await ASRBenchCommand.run(arguments.dropFirst())
    case "embed": try await EmbedBenchCommand.run(arguments.dropFirst())
    case "speak": try await TTSBenchCommand.run(arguments.dropFirst())
    case "residency": try await BenchResidencyCommand.run(arguments.dropFirst())
    case "photos": try await PhotosBenchCommand.run(arguments.dropFirst())
    case "serve-blob": try BlobServer.serve(arguments: arguments.dropFirst())  // the download benchmark's child
    case nil, "help", "--help", "-h": print(usage)
    default:
        FileHandle.standardError.write(Data("Benchmarks: unknown benchmark '\(arguments[0])'\n\(usage)\n".utf8))
        exit(2)
    }
} catch let error as CLIError {
    FileHandle.standardError.write(Data("Benchmarks: \(error)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("Benchmarks: \(error)\n".utf8))
    exit(1)
}
