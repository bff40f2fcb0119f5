import Foundation

// `ondevice`: the command-line face of OnDevice. Every failure prints one line to stderr and
// exits non-zero (2 for usage errors, 1 for everything else).

let usage = """
    usage: ondevice <command> [options]

    commands:
      generate --model M [--raw] [--greedy | --temperature T --seed S] [--max-tokens N] [--json] PROMPT
      tokenize --model M [--json] TEXT
      chat     --model M [--system TEXT]
      bench    --model M [--threads N] [--json]
      transcribe FILE [--model ID] [--stream] [--vad] [--beam N] [--language L] [--json|--srt|--vtt]
      vad      FILE [--model ID] [--threshold T] [--json]
      bench-asr FILE... [--model ID] [--threads 1,2] [--beam N] [--repetitions R] [--json]
      help

    M is a catalog id (see catalog/models.lock) or a path to a GGUF file.
    Common options: --threads N (kernel threads), --context N (context length).
    """

func runCommand(_ args: [String]) async throws {
    guard let command = args.first else {
        print(usage)
        return
    }
    let rest = args.dropFirst()
    switch command {
    case "generate": try await GenerateCommand.run(rest)
    case "tokenize": try await TokenizeCommand.run(rest)
    case "chat": try await ChatCommand.run(rest)
    case "bench": try await BenchCommand.run(rest)
    case "transcribe": try await TranscribeCommand.run(rest)
    case "vad": try await VADCommand.run(rest)
    case "bench-asr": try await ASRBenchCommand.run(rest)
    case "help", "--help", "-h": print(usage)
    default: throw CLIError.unknownCommand(command)
    }
}

do {
    try await runCommand(Array(CommandLine.arguments.dropFirst()))
} catch let error as CLIError {
    FileHandle.standardError.write(Data("ondevice: \(error)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("ondevice: \(error)\n".utf8))
    exit(1)
}
