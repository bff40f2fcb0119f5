import Foundation

extension InstalledModel {
    /// A model file used where it lies, never copied into the store, as a GGUF path is for text
    /// generation: a Piper voice (`name.onnx` with its config `name.onnx.json` beside it, as
    /// Piper's users hold voices). Nil when `path` is not a file; throws when it is a voice
    /// without its config.
    package static func inPlace(_ path: String) throws(StoreError) -> InstalledModel? {
        var isDirectory: ObjCBool = false
        guard path.hasSuffix(".onnx"), FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
              !isDirectory.boolValue else { return nil }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let directory = (absolute as NSString).deletingLastPathComponent
        let files = try ModelStore.sidecarFiles(of: absolute).map { ModelFile(name: $0, bytes: nil, sha256: nil, sourcePath: $0) }
        return InstalledModel(entry: .imported(id: absolute, kind: .tts, path: absolute, files: files), directory: directory)
    }
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
