import Audio
import Foundation
import Formats
import Fuzzing
import Retrieval
import StructuredOutput
import Tensor
import Testing
import Tokenizers

/// Every input a fuzzer found (Tests/FuzzingTests/Regressions/<target>/), replayed through its
/// target: each must now return normally. The folder names must be targets, and the found
/// inputs are also checked for the typed error that replaced the crash.
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions").path

    static func inputs() throws -> [(target: String, file: String)] {
        let fm = FileManager.default
        var found: [(String, String)] = []
        for target in try fm.contentsOfDirectory(atPath: folder).sorted() {
            for file in try fm.contentsOfDirectory(atPath: folder + "/" + target).sorted() {
                found.append((target, folder + "/" + target + "/" + file))
            }
        }
        return found
    }

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: folder + "/" + target + "/" + name)))
    }

    @Test func `every kept finding replays through its target without a trap`() throws {
        let inputs = try Self.inputs()
        #expect(inputs.count >= 5, "the regression folder lost its inputs")
        for (name, file) in inputs {
            let target = try #require(FuzzTarget.named(name), "Regressions/\(name) is not a fuzz target")
            target.run(Array(try #require(FileManager.default.contents(atPath: file))))
        }
        print("fuzz regressions: replayed \(inputs.count) inputs")
    }

    @Test func `every json-schema seed compiles and its document is accepted and valid`() throws {
        let seeds = try #require(FuzzSeeds.all()["json-schema"])
        #expect(seeds.count >= 10)
        for seed in seeds {
            let split = try #require(seed.firstIndex(of: 0))
            let schema = try JSONSchema(json: String(decoding: seed[..<split], as: UTF8.self))
            let document = String(decoding: seed[(split + 1)...], as: UTF8.self)
            #expect(try Grammar(schema: schema).recognizes(document), "\(document)")
            try schema.validate(json: document)
            try #require(FuzzTarget.named("json-schema")).run(seed)
        }
    }

    @Test func `a CTranslate2 variable whose element count overflows is refused`() throws {
        let bytes = try Self.bytes("ctranslate2", "elements-times-size-overflow")
        let region = bytes.withUnsafeBytes { MappedRegion(copying: $0, name: "model.bin") }
        #expect(throws: FormatError.self) { try CTranslate2Model(region: region) }
    }

    @Test func `a WAV at 1 Hz is refused before hours of resampling`() throws {
        let bytes = try Self.bytes("wav", "one-hertz-sample-rate")
        #expect(throws: AudioError.invalidSampleRate(1)) { try WAVFile.decode(bytes) }
        #expect(throws: AudioError.invalidSampleRate(999)) { try Resampler(from: 999, to: 16_000) }
    }

    @Test func `an index journal whose backend claims billions of dimensions is damage`() throws {
        let bytes = try Self.bytes("index-journal", "huge-backend-dimension")
        let journal = IndexJournal.sealing(records: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }.dropFirst()))
        #expect(throws: RetrievalError.self) { try journal.withUnsafeBytes { try IndexJournal.verify($0, path: "j") } }
    }

    @Test func `a Whisper tokenizer with <|translate|> before <|startoftranscript|> is refused`() throws {
        let bytes = try Self.bytes("whisper-tokenizer", "translate-before-startoftranscript")
        #expect(throws: TokenizerError.self) { try WhisperTokenizer(json: Data(bytes), vocabularySize: 512) }
    }

    @Test func `the built-in seeds are inputs their parsers accept`() throws {
        let seeds = FuzzSeeds.all()
        #expect(Set(seeds.keys) == Set(FuzzTarget.all.map(\.name)), "every target has seeds")
        func region(_ b: [UInt8]) -> MappedRegion { b.withUnsafeBytes { MappedRegion(copying: $0, name: "seed") } }
        for seed in try #require(seeds["gguf"]) { _ = try GGUFFile(region: region(seed)) }
        _ = try SafetensorsFile(region: region(try #require(seeds["safetensors"]?.first)))
        let onnx = try ONNXModel(region: region(try #require(seeds["onnx"]?.first)))
        #expect(try onnx.floats("b") == [1, 2])
        let torch = try TorchCheckpoint(data: try #require(seeds["torch"]?.first))
        #expect(torch.names == ["w"])
        let ct2 = try CTranslate2Model(region: region(try #require(seeds["ctranslate2"]?.first)))
        #expect(ct2.aliases == ["decoder/alias": "decoder/scale"])
        for seed in try #require(seeds["wav"]) { _ = try WAVFile.decode(seed) }
        let journal = IndexJournal.example()
        let summary = try journal.withUnsafeBytes { try IndexJournal.verify($0, path: "example") }
        #expect(summary == IndexJournal.Summary(documents: 2, chunks: 4, vectors: 2, tornBytes: 0))
    }
}
