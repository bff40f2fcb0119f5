import Formats
import Models
import Tensor
import TextGeneration
import Tokenizers

extension FuzzTarget {
    static let formatTargets: [FuzzTarget] = [
        FuzzTarget("gguf", "GGUF header, metadata and tensor table; every tensor read", maxLength: 64 * 1024) { bytes in
            let region = MappedRegion(copying: bytes, name: "fuzz.gguf")
            guard let file = try? GGUFFile(region: region) else { return }
            consume(readEvery(file.tensorInfos.map(\.name)) { try? file.tensor($0) })
            for key in file.metadataKeys { consume(file.metadata[key]) }
            consume(file.architecture)
        },
        FuzzTarget("gguf-model", "a GGUF as a language model: config, weight views, tokenizer, chat template, one forward pass when small",
                   maxLength: 64 * 1024) { bytes in
            let region = MappedRegion(copying: bytes, name: "fuzz.gguf")
            guard let file = try? GGUFFile(region: region) else { return }
            if let tokenizer = try? Tokenizer(gguf: file) {
                let ids = tokenizer.encode("Hello <|im_start|> wörld 🙂", addBOS: true, parseSpecial: true)
                consume(tokenizer.decode(ids))
                if let template = try? ChatTemplate(metadataTemplate: file.string("tokenizer.chat_template")),
                   let prompt = try? template.prompt(messages: [ChatMessage(role: .system, content: "s"),
                                                                ChatMessage(role: .user, content: "<|im_end|>u")],
                                                     addGenerationPrompt: true) {
                    consume(tokenizer.encode(prompt))
                }
            }
            guard let config = try? DecoderConfig(file: file), (try? DecoderWeights(file: file, config: config)) != nil,
                  let model = try? LanguageModel(file: file, path: "fuzz.gguf"), model.weightBytes < 1 << 20,
                  config.vocabularySize <= 4096, config.embeddingLength <= 256 else { return }
            let session = Session(model: model, contextLength: 8, threads: 1)
            _ = try? session.prefill([0, 1, 2].map { Int32($0 % max(config.vocabularySize, 1)) })
        },
        FuzzTarget("safetensors", "safetensors header JSON and tensor table; every tensor read", maxLength: 16 * 1024) { bytes in
            let region = MappedRegion(copying: bytes, name: "fuzz.safetensors")
            guard let file = try? SafetensorsFile(region: region) else { return }
            consume(readEvery(Array(file.tensorInfos.keys)) { try? file.tensor($0) })
        },
        FuzzTarget("onnx", "ONNX protobuf: graph, nodes, initializers (raw and typed data) read as floats", maxLength: 64 * 1024) { bytes in
            let region = MappedRegion(copying: bytes, name: "fuzz.onnx")
            guard let model = try? ONNXModel(region: region) else { return }
            for name in model.initializers.keys.sorted() { consume(try? model.floats(name)) }
            for tensor in model.initializers.values { consume(try? tensor.int64s(in: region.bytes)) }
            consume(model.nodes.count)
            // The graph executor on whatever graph it accepts, fed one small image.
            if let graph = try? ONNXGraph(model: model), graph.inputNames.count == 1 {
                let input = GraphTensor(shape: [1, 3, 8, 8], floats: (0..<192).map { Float($0 % 7) - 3 })
                consume(try? graph.run([graph.inputNames[0]: input], threads: 1))
            }
        },
        FuzzTarget("tflite", "TFLite flatbuffer: subgraphs, tensors, operators and options; every constant read; the graph compiled and run when small", maxLength: 16 * 1024) { bytes in
            let region = MappedRegion(copying: bytes, name: "fuzz.tflite")
            guard let model = try? TFLiteModel(region: region) else { return }
            for graph in model.subgraphs {
                for tensor in graph.tensors where tensor.data != nil {
                    consume(try? model.floats(tensor))
                    consume(try? model.int32s(tensor))
                }
                consume(graph.operators.map(\.options))
            }
            // A file that reads may still not compile; one that compiles runs on a small input.
            guard let compiled = try? TFLiteGraph(model: model), compiled.shapes[compiled.input].reduce(1, *) <= 1 << 16,
                  compiled.largestActivation <= 1 << 20 else { return }
            consume(try? compiled.run([Float](repeating: 0.5, count: compiled.shapes[compiled.input].reduce(1, *)), threads: 1))
        },
        FuzzTarget("torch", "PyTorch checkpoints, zip and legacy pickle layouts; every tensor read", maxLength: 64 * 1024) { bytes in
            guard let checkpoint = try? TorchCheckpoint(data: Array(bytes)) else { return }
            consume(readEvery(checkpoint.names) { try? checkpoint.tensor($0) })
        },
        FuzzTarget("ctranslate2", "CTranslate2 model.bin: header, variables, aliases; every variable read", maxLength: 16 * 1024) { bytes in
            let region = MappedRegion(copying: bytes, name: "model.bin")
            guard let model = try? CTranslate2Model(region: region) else { return }
            consume(readEvery(Array(model.variables.keys)) { try? model.tensor($0) })
            for name in model.variables.keys { consume(model.integerScalar(name)) }
        },
    ]
}

/// Reads the first and last byte of every tensor `view` gives for `names` (see `touch`).
func readEvery(_ names: [String], _ view: (String) -> TensorView?) -> UInt8 {
    names.reduce(0) { sum, name in view(name).map { sum &+ touch($0.data, $0.byteCount) } ?? sum }
}
