import Foundation

extension InstalledModel {
    /// A model used where it lies, never copied into the store, as a GGUF path is for text
    /// generation: a file of `kind` (a Piper voice's `name.onnx` with its config `name.onnx.json`
    /// beside it, as Piper's users hold voices; Silero's `.safetensors`; a faster-whisper
    /// `model.bin`; an EfficientNet `.pth`; an ONNX or TFLite network), or a folder holding one
    /// (a faster-whisper or sentence-transformers model folder). The kind's engine picks its files
    /// from what is there and names what is missing. Nil when `path` is neither a model file nor
    /// a folder (then it is a catalog id); throws when it is a voice without its config.
    package static func inPlace(_ path: String, kind: ModelKind) throws(StoreError) -> InstalledModel? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let directory: String
        let names: [String]
        if isDirectory.boolValue {
            directory = absolute
            let listed = (try? FileManager.default.contentsOfDirectory(atPath: absolute)) ?? []
            names = listed.filter { name in
                var isFolder: ObjCBool = false
                return !name.hasPrefix(".") && FileManager.default.fileExists(atPath: absolute + "/" + name, isDirectory: &isFolder)
                    && !isFolder.boolValue
            }.sorted()
        } else {
            guard modelFileSuffixes.contains(where: { absolute.hasSuffix($0) }) else { return nil }
            directory = (absolute as NSString).deletingLastPathComponent
            names = kind == .tts ? try ModelStore.sidecarFiles(of: absolute) : [(absolute as NSString).lastPathComponent]
        }
        let files = names.map { ModelFile(name: $0, bytes: nil, sha256: nil, sourcePath: $0) }
        return InstalledModel(entry: .imported(id: absolute, kind: kind, path: absolute, files: files), directory: directory)
    }

    /// The endings of the files an engine loads directly.
    static let modelFileSuffixes = [".onnx", ".gguf", ".safetensors", ".bin", ".pth", ".pt", ".tflite"]
}

extension ModelStore {
    /// The names of the files that make up the model whose main file is `path`: a Piper voice's
    /// `.onnx` with its `.onnx.json` config (required) and a `MODEL_CARD` beside them (when
    /// present); any other file alone.
    package static func sidecarFiles(of path: String) throws(StoreError) -> [String] {
        let name = (path as NSString).lastPathComponent
        guard name.hasSuffix(".onnx") else { return [name] }
        let directory = (path as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: path + ".json") else { throw .missingFile(file: name + ".json") }
        var names = [name, name + ".json"]
        if FileManager.default.fileExists(atPath: directory + "/MODEL_CARD") { names.append("MODEL_CARD") }
        return names
    }
}
