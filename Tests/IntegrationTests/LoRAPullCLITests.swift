import Foundation
import ModelStore
import Testing
import TestSupport

/// `ondevice lora pull` and `models pull --base`: an adapter fetched through the store is checked
/// against its base model and recorded with it, so `lora list --base M` finds it; one that does
/// not fit is not kept.
@Suite struct LoRAPullCLITests {
    /// A store holding the tiny base model `tiny`, pulled from the loopback hub.
    func storeWithBase() async throws -> (StoreCLIFixture, GGUFWriter) {
        let f = try StoreCLIFixture()
        let base = TinyModel().writer()
        f.server.serve(path: f.hubPath(repo: "org/tiny-llm", file: "tiny.gguf"), body: base.bytes())
        _ = try await f.json(["models", "pull", "hf:org/tiny-llm/tiny.gguf", "--json"])
        return (f, base)
    }

    @Test func `a pulled adapter is verified, checked against its base and listed under it`() async throws {
        let (f, base) = try await storeWithBase()
        let adapter = GGUFWriter.loraAdapter(for: base, rank: 2, alpha: 4, seed: 7).bytes()
        let path = f.hubPath(repo: "org/tiny-pirate", file: "pirate.gguf")
        f.server.serve(path: path, body: adapter)

        let installed = try await f.json(["lora", "pull", "hf:org/tiny-pirate/pirate.gguf", "--id", "pirate", "--base", "tiny", "--json"])
        #expect(installed.string("event") == "installed")
        #expect(installed.string("kind") == "lora")
        #expect(installed.string("base_model") == "tiny")
        #expect(installed.objects("files").first?["sha256"] as? String == SHA256.hex(of: adapter))

        let listed = try await f.json(["lora", "list", "--base", "tiny", "--json"]).objects("adapters")
        #expect(listed.map { $0["id"] as? String } == ["pirate"])
        #expect(try await f.json(["lora", "list", "--base", "other", "--json"]).objects("adapters").isEmpty)
        // The recorded id applies like an imported one.
        let run = try await f.json(["generate", "--model", "tiny", "--lora", "pirate:0.5", "--max-tokens", "2", "--json", "hi"])
        #expect((run["adapters"] as? [[String: Any]])?.first?["source"] as? String == "pirate", "\(run)")
    }

    @Test func `an adapter that does not fit its base is removed after the pull and the error says why`() async throws {
        let (f, base) = try await storeWithBase()
        let wrong = GGUFWriter.loraAdapter(for: base, rank: 2, alpha: 4, seed: 7, architecture: "gemma3").bytes()
        f.server.serve(path: f.hubPath(repo: "org/wrong", file: "wrong.gguf"), body: wrong)

        let out = try await f.run(["models", "pull", "hf:org/wrong/wrong.gguf", "--id", "wrong", "--base", "tiny"])
        #expect(out.status != 0)
        #expect(out.stderr.contains("does not fit 'tiny'"), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.home.path + "/org/wrong/main/wrong/wrong.gguf"))
        #expect(try await f.json(["lora", "list", "--json"]).objects("adapters").allSatisfy { $0["state"] as? String != "installed" })

        let usage = try await f.run(["lora", "pull", "hf:org/wrong/wrong.gguf"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--base"), "\(usage.stderr)")
    }
}
