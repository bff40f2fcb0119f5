import Foundation
import Testing
import ModelStore

struct CatalogTests {
    static let lockPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../catalog/models.lock").standardized.path

    @Test func `compiled catalog agrees with models.lock`() throws {
        let text = try String(contentsOfFile: Self.lockPath, encoding: .utf8)
        let locked = try CatalogLock.parse(text)
        #expect(locked.map(\.id) == Catalog.pinned.map(\.id))
        for (lock, pinned) in zip(locked, Catalog.pinned) {
            #expect(lock.repo == pinned.repo && lock.revision == pinned.revision && lock.variant == pinned.variant, "\(lock.id)")
            #expect(pinned.source == .huggingFace(repo: lock.repo, revision: lock.revision), "\(lock.id)")
            #expect(lock.license == pinned.license, "\(lock.id)")
            #expect(lock.files == pinned.files, "\(lock.id)")
        }
    }

    @Test func `every op maps to a pinned model of the right kind`() throws {
        let expected: [Op: (String, ModelKind)] = [
            .generate: ("smollm2-135m-instruct-q4_1", .llm), .chat: ("smollm2-135m-instruct-q4_1", .llm),
            .summarize: ("smollm2-135m-instruct-q4_1", .llm), .translate: ("qwen2.5-coder-0.5b-instruct-q4_k_m", .llm),
            .proofread: ("smollm2-135m-instruct-q4_1", .llm), .transcribe: ("whisper-tiny.en-ct2", .asr),
            .vad: ("silero-vad-v6", .vad), .embed: ("all-minilm-l6-v2", .embedding), .search: ("all-minilm-l6-v2", .embedding),
            .speak: ("piper-en_US-joe-medium", .tts), .classify: ("efficientnet-lite0", .vision),
            .faces: ("mediapipe-face-detection-short", .vision),
        ]
        #expect(expected.count == Op.allCases.count)
        for op in Op.allCases {
            let entry = try Catalog().entry(for: op)
            #expect(entry.id == expected[op]?.0 && entry.kind == expected[op]?.1, "\(op)")
        }
        #expect(Op.modelIds(for: [.chat, .summarize, .embed, .search]) == ["smollm2-135m-instruct-q4_1", "all-minilm-l6-v2"])
    }

    @Test func `lock parser reports what is wrong and where`() {
        let header = "id\tfile\tbytes\tsha256\tlicense\trepo\trevision\tvariant\tsource_path"
        let sha = String(repeating: "ab", count: 32)
        func parse(_ rows: [String], header: String = header) -> StoreError? {
            do { _ = try CatalogLock.parse(([header] + rows).joined(separator: "\n")); return nil } catch { return error }
        }
        #expect(parse([], header: "id\tfile") == .catalogMissingColumn(name: "bytes"))
        #expect(parse(["m\tf\tx\t\(sha)\tMIT\to/r\tmain\tv\tf"]) == .catalogBadField(line: 2, column: "bytes", value: "x"))
        #expect(parse(["m\tf\t1\tABC\tMIT\to/r\tmain\tv\tf"]) == .catalogBadField(line: 2, column: "sha256", value: "ABC"))
        #expect(parse(["m\tf\t1"]) == .catalogBadRow(line: 2, fields: 3, expected: 9))
        #expect(parse(["m\tf\t1\t\(sha)\tMIT\to/r\tmain\tv\tf", "m\tg\t1\t\(sha)\tMIT\to/r\tdev\tv\tg"])
                == .catalogConflict(id: "m", detail: "line 3 disagrees with earlier rows"))
        #expect(parse(["m\t../f\t1\t\(sha)\tMIT\to/r\tmain\tv\tf"]) == .invalidPath(path: "../f"))
        #expect(parse(["m\tf\t1\t\(sha)\tMIT\to/r\tmain\tv\tf\r", ""]) == nil)
    }

    @Test func `names that would escape the root are rejected`() {
        for id in ["../evil", "..", "/etc", "a/b", "a\\b", "a\0b", "a\nb", "", ".hidden", String(repeating: "x", count: 129)] {
            #expect(throws: StoreError.invalidModelId(id: id)) { try SafeName.checkModelId(id) }
        }
        for file in ["../x", "a/../../x", "/abs", "a\\b", "a\u{1}b", "a//b", "./x", "x.partial"] {
            #expect(throws: StoreError.invalidPath(path: file)) { try SafeName.checkRelativeFile(file) }
        }
        for repo in ["../r", "o/r/x", "o/..", ".staging/x", "o/"] {
            #expect(throws: StoreError.invalidPath(path: repo)) { try SafeName.checkRepo(repo) }
        }
        #expect(throws: Never.self) {
            try SafeName.checkModelId("whisper-tiny.en-ct2")
            try SafeName.checkRelativeFile("1_Pooling/config.json")
            try SafeName.checkRelativeFile(".gitattributes")
            try SafeName.checkRepo("sentence-transformers/all-MiniLM-L6-v2")
        }
    }

    @Test func `store root comes from ONDEVICE_HOME, then XDG_DATA_HOME, then HOME`() throws {
        #expect(StoreConfiguration.defaultRoot(environment: ["ONDEVICE_HOME": "/o", "XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/o")
        #expect(StoreConfiguration.defaultRoot(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/ondevice/models")
        #expect(StoreConfiguration.defaultRoot(environment: ["HOME": "/h"]) == "/h/.local/share/ondevice/models")
        let configuration = StoreConfiguration.fromEnvironment(["ONDEVICE_HOME": "/o", "HF_ENDPOINT": "http://127.0.0.1:9", "HF_TOKEN": "t"])
        #expect(configuration.hfEndpoint?.absoluteString == "http://127.0.0.1:9" && configuration.hfToken == "t")
        let entry = Catalog.pinned.first { $0.id == "silero-vad-v6" }!
        #expect(try configuration.sourceURL(for: entry, file: entry.files[0]).absoluteString
                == "http://127.0.0.1:9/snakers4/silero-vad/resolve/v6.2.3/src/silero_vad/data/silero_vad_16k.safetensors")
        #expect(StoreLayout(root: "/r").modelDirectory(entry) == "/r/snakers4/silero-vad/v6.2.3/v6")
    }

    @Test func `pull specs parse catalog ids, hf paths and URLs`() throws {
        #expect(try PullSpec.parse("silero-vad-v6") == .catalog(id: "silero-vad-v6"))
        #expect(try PullSpec.parse("hf:Org/Repo@abc123/sub/Model.Q4_0.gguf")
                == .huggingFace(id: "model.q4_0", repo: "Org/Repo", revision: "abc123", file: "sub/Model.Q4_0.gguf", sha256: nil))
        let sha = String(repeating: "0", count: 64)
        #expect(try PullSpec.parse("https://h/x/m.bin", sha256: sha, id: "m") == .url(id: "m", url: URL(string: "https://h/x/m.bin")!, sha256: sha))
        #expect(throws: StoreError.invalidModelId(id: "../m")) { try PullSpec.parse("https://h/m.bin", sha256: sha, id: "../m") }
        #expect(throws: StoreError.invalidPath(path: "../x")) { try PullSpec.parse("hf:o/r/../x") }
    }

    @Test func `ondevice.json declares ops and extra models`() throws {
        let manifest = try PrefetchManifest.parse(Data(#"{"ops": ["transcribe", "chat", "summarize"], "models": ["gemma3-270m-q4_k_m"]}"#.utf8))
        #expect(manifest.modelIds == ["whisper-tiny.en-ct2", "smollm2-135m-instruct-q4_1", "gemma3-270m-q4_k_m"])
        #expect(throws: StoreError.unknownOp(name: "dance")) { try PrefetchManifest.parse(Data(#"{"ops": ["dance"]}"#.utf8)) }
        #expect(throws: StoreError.manifestInvalid(path: "ondevice.json", detail: "\"ops\" must be an array of strings")) {
            try PrefetchManifest.parse(Data(#"{"ops": "chat"}"#.utf8))
        }
    }
}
