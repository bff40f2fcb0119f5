import Foundation
import TestSupport
import TextGeneration

/// Loads a `TinyModel` from a temporary GGUF (the mapping keeps the file's data alive).
func loadTiny(_ configure: (inout TinyModel) -> Void = { _ in }) throws -> LanguageModel {
    var tiny = TinyModel()
    configure(&tiny)
    let dir = try TemporaryDirectory()
    let path = try tiny.writer().write(in: dir)
    defer { dir.cleanup() }
    return try LanguageModel(path: path)
}
