// swift-tools-version:6.0
// OnDevice: on-device AI for Swift, Linux first. One target per layer; arrows point down
// (see scripts/check-layering.py, which holds every target's imports to this graph).
import PackageDescription

let package = Package(
    name: "OnDevice",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OnDevice", targets: ["OnDevice"]),
        .executable(name: "ondevice", targets: ["ondevice"]),
        .executable(name: "Benchmarks", targets: ["Benchmarks"]),
        .executable(name: "ondevice-fuzz", targets: ["ondevice-fuzz"]),
    ],
    targets: [
        // C SIMD hot loops with runtime CPU dispatch (AVX2/FMA/F16C via target attributes):
        // users need no compiler flags.
        .target(name: "CKernels"),
        .target(name: "Tensor"),
        .target(name: "Kernels", dependencies: ["Tensor", "CKernels"]),
        .target(name: "Formats", dependencies: ["Tensor"]),
        .target(name: "Tokenizers", dependencies: ["Platform", "Formats", "Jinja"]),
        // A sandboxed interpreter for the Jinja subset of Hugging Face chat templates, rendering
        // what transformers' jinja2 environment renders, with template/data origins per segment.
        .target(name: "Jinja"),
        // espeak-ng, the phonemizer Piper voices are trained with (Debian's libespeak-ng).
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        // Text to phoneme ids for Piper voices: espeak-ng clauses mapped through the voice config.
        .target(name: "Phonemes", dependencies: ["Platform", "CEspeakNG"]),
        // libsndfile from Debian: compressed audio (FLAC, Ogg Vorbis/Opus, MP3) in and out.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .target(name: "Audio", dependencies: ["CSndFile"]),
        // Still images: decoding, orientation, resampling (the photo features read from here).
        .target(name: "Imaging", dependencies: ["CImageCodecs"]),
        // libjpeg-turbo and libpng from Debian, and the C shim that keeps their longjmp error
        // handling out of Swift frames.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(name: "CImageCodecs", dependencies: ["CJPEG", "CPNG"]),
        // Photo similarity (perceptual or neural backend, chosen by the runtime's configuration),
        // descriptor cache, burst grouping and sharpness ranking.
        .target(name: "Photos", dependencies: ["Platform", "Imaging", "Models", "Runtime", "ModelStore"]),
        .target(name: "Models", dependencies: ["EngineSupport", "Tensor", "Kernels", "CKernels", "Formats"]),
        .target(name: "ModelStore", dependencies: ["Platform", "CKernels"]),
        .target(name: "Runtime", dependencies: ["Platform", "CKernels", "Kernels", "Speech", "TextGeneration", "StructuredOutput", "EngineSupport", "ModelStore", "Models", "Tokenizers", "Formats", "Tensor", "Phonemes"]),
        .target(name: "Retrieval", dependencies: ["Platform", "EngineSupport", "Models", "Tokenizers", "Formats", "Kernels", "CKernels", "Tensor", "ModelStore"]),
        .target(name: "OnDevice", dependencies: ["Platform", "Speech", "TextGeneration", "Tools", "StructuredOutput", "EngineSupport", "Runtime", "Retrieval", "Audio", "ModelStore", "Models", "Tokenizers", "Formats", "Tensor", "Photos"]),
        .executableTarget(name: "ondevice", dependencies: ["Platform", "CLISupport", "OnDevice", "Server"]),
        // What both executables parse and print: arguments, usage errors, JSON lines, the CPU.
        .target(name: "CLISupport"),
        // `ondevice serve`: an OpenAI-compatible HTTP/1.1 server over POSIX sockets.
        .target(name: "Server", dependencies: ["Platform", "StructuredOutput", "OnDevice"]),
        .executableTarget(name: "Benchmarks", dependencies: ["Platform", "CLISupport", "OnDevice", "Runtime", "ModelStore", "Models", "Server", "TestSupport",
                                                            "TextGeneration", "Kernels", "EngineSupport", "Speech", "Audio", "Retrieval",
                                                            "Photos", "Imaging"]),
        // The engine, split by concern (every door reaches text generation through TextCore):
        // compute threads, cancellation, gates and the seeded generator, below everything that runs
        // models; JSON, JSON Schema and the grammars that hold decoding to them; tools and their
        // calls; text generation; speech recognition, voice activity and synthesis (the only part
        // that links libespeak-ng).
        .target(name: "EngineSupport"),
        // The POSIX calls whose spelling differs between Linux and Apple platforms, once.
        .target(name: "Platform"),
        .target(name: "StructuredOutput", dependencies: ["Platform", "EngineSupport", "Tokenizers", "Models", "Formats"]),
        .target(name: "Tools", dependencies: ["StructuredOutput", "EngineSupport"]),
        .target(name: "TextGeneration", dependencies: ["Tools", "StructuredOutput", "EngineSupport", "Models", "Tokenizers", "Kernels", "Tensor", "Formats"]),
        .target(name: "Speech", dependencies: ["Platform", "EngineSupport", "Models", "Tokenizers", "Kernels", "Tensor", "Formats", "Audio", "Phonemes"]),
        .target(name: "TestSupport", dependencies: ["Platform", "EngineSupport", "Formats", "Tensor", "Tokenizers", "StructuredOutput", "Retrieval"]),
        // Fuzz targets for every parser of outside bytes, run by scripts/fuzz.sh under libFuzzer and
        // AddressSanitizer; CFuzz reaches libFuzzer's driver only when the fuzz build links it.
        .target(name: "CFuzz"),
        .target(name: "Fuzzing", dependencies: ["Platform", "TextGeneration", "Tools", "StructuredOutput", "Formats", "Tensor", "Tokenizers", "Models", "Audio", "Imaging", "Phonemes", "Retrieval", "Server", "TestSupport"]),
        .executableTarget(name: "ondevice-fuzz", dependencies: ["Fuzzing", "CFuzz"]),
        .testTarget(name: "TensorTests", dependencies: ["Tensor"]),
        // Regressions/<target>/: every input a fuzzer found, replayed through its target.
        .testTarget(name: "FuzzingTests", dependencies: ["Fuzzing", "StructuredOutput", "Formats", "Tensor", "Audio", "Retrieval", "Tokenizers"],
                    exclude: ["Regressions"]),
        .testTarget(name: "KernelsTests", dependencies: ["Platform", "Kernels", "Tensor", "CKernels"]),
        .testTarget(name: "FormatsTests", dependencies: ["Formats", "Tensor", "TestSupport"]),
        .testTarget(name: "TokenizersTests", dependencies: ["Tokenizers", "Formats", "TestSupport"]),
        // Fixtures/jinja-references.jsonl is written by scripts/make-jinja-references.py and read by path.
        .testTarget(name: "JinjaTests", dependencies: ["Jinja"], exclude: ["Fixtures"]),
        .testTarget(name: "EngineTests", dependencies: ["Platform", "EngineSupport", "TextGeneration", "Tools", "StructuredOutput", "Models", "Tokenizers", "Formats", "Tensor", "TestSupport"]),
        .testTarget(name: "ModelStoreTests", dependencies: ["Platform", "ModelStore", "TestSupport"]),
        .testTarget(name: "RuntimeTests", dependencies: ["Platform", "Kernels", "TextGeneration", "Runtime", "ModelStore", "Models", "Tokenizers", "TestSupport"]),
        .testTarget(name: "SpeechTests", dependencies: ["Platform", "Speech", "Audio", "Formats", "Tokenizers", "Models", "Kernels", "CKernels", "Tensor", "TestSupport", "Phonemes"],
                    exclude: ["word_timestamps_reference.json"]),
        .testTarget(name: "RetrievalTests", dependencies: ["TextGeneration", "Retrieval", "Models", "Tokenizers", "Formats", "Kernels", "CKernels", "Tensor", "TestSupport"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "ModelStore", "TestSupport"]),
        .testTarget(name: "PhotosTests", dependencies: ["Platform", "Photos", "Imaging", "Models", "Runtime", "ModelStore", "TestSupport"]),
        .testTarget(name: "ServerTests", dependencies: ["TextGeneration", "Tools", "StructuredOutput", "Server", "OnDevice", "Runtime", "Tokenizers", "TestSupport", "Platform"],
                    exclude: ["checks.py", "client_check.py", "ollama_check.py", "speech_check.py", "chat_page_check.py"]),
        .testTarget(name: "VisionTests", dependencies: ["Imaging", "Models", "Formats", "ModelStore", "Photos", "Tensor", "TestSupport"]),
        // Fixtures/synthetic: llama.cpp references for the synthetic decoders, read by path.
        .testTarget(name: "IntegrationTests", dependencies: ["Platform", "TextGeneration", "Tools", "StructuredOutput", "OnDevice", "Runtime", "Retrieval", "Audio", "Models", "Tokenizers", "Formats", "ModelStore", "TestSupport"],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
