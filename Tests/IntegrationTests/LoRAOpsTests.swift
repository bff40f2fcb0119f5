import Foundation
import OnDevice
import Testing
import TestSupport

/// LoRA through the public API: a per-request option over one resident base model.
@Suite(.serialized) struct LoRAOpsTests {
    static let question = "What is the capital of France?"

    @Test func `generate and chat apply a per-request adapter and leave other requests on the base model`() async throws {
        let ai = try OpsTests.instance()
        var pirate = OpsTests.greedy
        pirate.adapters = [LoRA(path: LoRAGoldenTests.adapterPath, scale: 1)]
        let before = try await ai.generate(Self.question, options: OpsTests.greedy)
        let answer = try await ai.generate(Self.question, options: pirate)
        let chat = try await ai.chat([.user("Which animal says moo?")], options: pirate)
        let after = try await ai.generate(Self.question, options: OpsTests.greedy)
        print("[lora ops] base: \(before.text.prefix(80)) | pirate: \(answer.text) | chat: \(chat.text)")
        #expect(answer.text.hasPrefix("Arrr, matey!"))
        #expect(chat.text.hasPrefix("Arrr"))
        #expect(!before.text.hasPrefix("Arr"))
        #expect(after.text == before.text)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `an adapter that does not fit the model is a typed error`() async throws {
        let ai = try OpsTests.instance(TestModels.gemma3)
        var options = OpsTests.greedy
        options.adapters = [LoRA(path: LoRAGoldenTests.adapterPath)]
        do {
            _ = try await ai.generate("The sky is", options: options)
            Issue.record("expected an error")
        } catch let error as OnDeviceError {
            guard error.code == .adapterUnusable else { Issue.record("wrong error \(error)"); return }
            #expect(error.path == LoRAGoldenTests.adapterPath)
            #expect(error.reason?.contains("gemma3") == true)
        }
        var missing = OpsTests.greedy
        missing.adapters = [LoRA(path: "/nonexistent/adapter.gguf")]
        await #expect(throws: OnDeviceError.self) { _ = try await ai.generate("The sky is", options: missing) }
    }

    @Test func `loaded adapters are reported with their size and can be unloaded`() async throws {
        let ai = try OpsTests.instance()
        #expect(try await ai.loadedAdapters().isEmpty)  // nothing resident yet: nothing loaded to answer
        var pirate = OpsTests.greedy
        pirate.adapters = [LoRA(path: LoRAGoldenTests.adapterPath, scale: 1)]
        _ = try await ai.generate(Self.question, options: pirate)
        let loaded = try await ai.loadedAdapters()
        #expect(loaded.map(\.path) == [LoRAGoldenTests.adapterPath])
        #expect(loaded.first?.rank == 8)
        #expect((loaded.first?.bytes ?? 0) > 1_000_000)
        try await ai.unloadAdapters()
        #expect(try await ai.loadedAdapters().isEmpty)
        // A later request loads it again.
        let again = try await ai.generate(Self.question, options: pirate)
        #expect(again.text.hasPrefix("Arr"))
        #expect(try await ai.loadedAdapters().count == 1)
        await #expect(throws: OnDeviceError.self) { _ = try await ai.adapter("no-such-adapter") }
        #expect(try await ai.activeLeases() == 0)
    }
}
