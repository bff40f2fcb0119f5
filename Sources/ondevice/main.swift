import CLISupport
import Foundation

// `ondevice`: the command-line face of OnDevice. Every failure prints one line to stderr and
// exits non-zero (2 for usage errors, 1 for everything else).

let usage = """
    usage: ondevice <command> [options]

    commands:
      generate --model M [--raw [--special]] [--stats] [--greedy | --temperature T --seed S] [--max-tokens N] [--json] [--json-schema FILE] [--lora L]... PROMPT
      tokenize --model M [--json] TEXT
      chat     --model M [--system TEXT] [--lora L]... [--tools calculate,current_time|all [--max-tool-calls N] [--require-tool-call] [--json]]
      bench    --model M [--threads N] [--lora L]... [--json]
      summarize [--model M] [--style paragraph|bullets] [--json] FILE|-
      translate [--model M] --to LANGUAGE [--from LANGUAGE] [--json] FILE|-
      proofread [--model M] [--json] FILE|-
      models list [--installed] [--json]
      models pull ID | hf:OWNER/REPO[@REVISION]/FILE [--sha256 HEX] [--id ID] | URL --sha256 HEX --id ID [--json]
      models rm ID...
      models info ID [--verify] [--json]
      models import PATH --id ID [--kind K] [--json]
      models du [--json]
      lora list [--base M] [--json] | lora import PATH --id ID --base M [--json] | lora rm ID...
      prefetch [--manifest ondevice.json] [--ops op,op] [--json]
      capability OP|MODEL|all [--json]
      transcribe FILE [--model ID] [--stream] [--vad] [--beam N] [--language L] [--json|--srt|--vtt]
      vad      FILE [--model ID] [--threshold T] [--json]
      speak    TEXT|--file F -o out.wav|- [--voice ID] [--noise-scale S] [--length-scale S] [--noise-w S] [--seed N] [--json]
      voice    --input in.wav -o reply.wav [--stt ID] [--llm M] [--tts ID] [--system TEXT] [--json]
      embed    TEXT|--file F [--model E] [--task query|document | --prefix P] [--overflow truncate|chunk|fail] [--json]
      index    add PATH... | remove ID... | list | reembed | compact  [--index DIR] [--model E | --lexical]
      search   QUERY [--k N] [--json] [--index DIR] [--model E | --lexical]
      ask      QUESTION [--k N] [--llm M] [--max-tokens N] [--json] [--index DIR] [--model E | --lexical]
      photos   index DIR | similar IMG --in DIR [--k N] | cull DIR [--json|--csv] [--gap SECONDS]  [--backend auto|perceptual|neural] [--threads N] [--cache DIR]
      photos   index DIR --text (also read each photo's text) | search TEXT [--in DIR] [--k N] [--json]
      classify IMG [--model PATH|ID] [--threads N] [--repeat N] [--json]
      faces    IMG [--mesh] [--mask OUT.png] [--threads N] [--json]   (faces: score, box, eye/nose/mouth/ear keypoints; --mesh: 468 points, eye aspect ratios, sharpness; --mask: person mask PNG)
      ocr      IMG [--threads N] [--json]   (text in an image: score, box corners, text per line)
      serve    [--host H] [--port P] [--api-key K] [--models ID,...] [--threads N] [--context N] [--parallel N] [--batching on|off]
               [--prompt-cache MIB]
               [--load-test SECONDS [--clients N,N...] [--model M] [--max-tokens N] [--target-port P]]
      help

    M is a catalog id (see catalog/models.lock) or a path to a GGUF file. E is an embedding model:
    all-minilm-l6-v2 (default), nomic-embed-text-v1.5-f16, or a model directory or .gguf path.
    The index lives in $XDG_DATA_HOME/ondevice/index unless --index DIR (or $ONDEVICE_INDEX) says otherwise.
    Common options: --threads N (kernel threads), --context N (context length).
    The engine-level benchmarks (Whisper's encoder and decoder, embeddings and vector search, Piper,
    residency under a budget, photo indexing) are in the Benchmarks executable: swift run -c release
    Benchmarks help.
    L is a LoRA adapter, FILE|ID[:SCALE] (a GGUF LoRA file or an installed adapter id; scale 1 by default).
    Environment: ONDEVICE_HOME (model store root), HF_ENDPOINT (Hugging Face base URL for
    downloads), HF_TOKEN (sent to that host only).
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
    case "summarize", "translate", "proofread": try await TextOpCommand.run(command, rest)
    case "models": try await ModelsCommand.run(rest)
    case "lora": try await LoRACommand.run(rest)
    case "prefetch": try await PrefetchCommand.run(rest)
    case "capability": try await CapabilityCommand.run(rest)
    case "transcribe": try await TranscribeCommand.run(rest)
    case "vad": try await VADCommand.run(rest)
    case "speak": try await SpeakCommand.run(rest)
    case "voice": try await VoiceCommand.run(rest)
    case "embed": try await EmbedCommand.run(rest)
    case "index": try await IndexCommand.run(rest)
    case "search": try await SearchCommand.run(rest)
    case "ask": try await AskCommand.run(rest)
    case "serve": try await ServeCommand.run(rest)
    case "photos": try await PhotosCommand.run(rest)
    case "classify": try await ClassifyCommand.run(rest)
    case "faces": try await FacesCommand.run(rest)
    case "ocr": try await OCRCommand.run(rest)
    case "bench-residency", "bench-asr", "bench-tts", "bench-embed":
        let name = command == "bench-tts" ? "speak" : String(command.dropFirst("bench-".count))
        throw CLIError.io("'\(command)' times the engine itself, so it lives in the Benchmarks executable: "
                          + "swift run -c release Benchmarks \(name)")
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
