import Foundation
import ModelStore
import Runtime
import Testing
import TestSupport

/// Revisioned configuration: stale rejected, same identity a no-op, one slice swaps one backend,
/// superseded refreshes drop, settings persist.
@Suite struct ConfigurationTests {
    let fixture: RuntimeFixture
    init() throws { fixture = try RuntimeFixture() }

    func settings(_ change: (inout RuntimeSettings) -> Void = { _ in }) -> RuntimeSettings {
        var s = RuntimeSettings()
        s.textModel = "tiny"
        s.threads = 2
        s.memoryBudgetBytes = 1 << 30
        change(&s)
        return s
    }

    @Test func `binding publishes revision 1 with the identity the graph was built with`() async throws {
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings()))
        let accepted = await runtime.accepted
        #expect(accepted.revision == 1)
        #expect(runtime.textGeneration.generation == 0)
        #expect(runtime.textGeneration.backend.modelId == "tiny")
    }

    @Test func `a stale revision is rejected and changes nothing`() async throws {
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings()))
        let newer = RuntimeConfiguration(revision: 5, settings: settings { $0.contextLength = 128 }, textModelFingerprint: nil)
        #expect(await runtime.apply(newer) == .applied(revision: 5, swapped: [.textGeneration]))
        let older = RuntimeConfiguration(revision: 4, settings: settings { $0.contextLength = 64 }, textModelFingerprint: nil)
        #expect(await runtime.apply(older) == .stale(revision: 4, lastAccepted: 5))
        let same = RuntimeConfiguration(revision: 5, settings: settings { $0.contextLength = 32 }, textModelFingerprint: nil)
        #expect(await runtime.apply(same) == .stale(revision: 5, lastAccepted: 5))
        #expect(runtime.textGeneration.backend.options.contextLength == 128)
    }

    @Test func `a newer revision with the same identity touches nothing`() async throws {
        let probe = CountingMemoryProbe(MemorySnapshot(memAvailable: 1 << 34))
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings(), memoryProbe: probe))
        let before = (probe.count, runtime.textGeneration.generation)
        let outcome = try await runtime.settings.update { $0.contextLength = 4096 }  // the value it already has
        #expect(outcome == .unchanged(revision: 2))
        #expect(await runtime.accepted.revision == 2)
        #expect((probe.count, runtime.textGeneration.generation) == before)
    }

    @Test func `one changed field swaps only its own backend`() async throws {
        let probe = CountingMemoryProbe(MemorySnapshot(memAvailable: 1 << 34))
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings(), memoryProbe: probe))
        let feature = runtime.textGeneration
        let budgetReads = probe.count

        let threads = try await runtime.settings.update { $0.threads = 1 }
        #expect(threads == .applied(revision: 2, swapped: [.textGeneration]))
        #expect(feature.generation == 1 && feature.backend.options.threads == 1)
        #expect(probe.count == budgetReads)  // the residency cache was not reconfigured

        let keepAlive = try await runtime.settings.update { $0.keepAliveSeconds = 0 }
        #expect(keepAlive == .applied(revision: 3, swapped: [.residency]))
        #expect(feature.generation == 1)  // the text backend was not swapped
        #expect(await runtime.residency.defaultKeepAlive == .unloadImmediately)
        #expect(probe.count == budgetReads + 1)
        #expect(runtime.textGeneration === feature)  // the feature object outlives its backends
    }

    @Test func `a refresh overtaken by a newer change cannot publish`() async throws {
        let resolver = GatedResolver()
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings(), resolver: resolver))
        let gate = resolver.holdNext()
        let slowRefresh = Task { try await runtime.settings.refresh() }
        while gate.waiting == 0 { await Task.yield() }
        let update = try await runtime.settings.update { $0.contextLength = 100 }
        #expect(update == .applied(revision: 2, swapped: [.textGeneration]))
        gate.open()
        #expect(try await slowRefresh.value == nil)  // dropped, not published
        let accepted = await runtime.accepted
        #expect(accepted.revision == 2)
        #expect(accepted.identity.textGeneration.options.contextLength == 100)
        #expect(runtime.textGeneration.generation == 1)
        // A refresh nobody overtakes publishes (and finds nothing new).
        #expect(try await runtime.settings.refresh() == .unchanged(revision: 3))
    }

    @Test func `settings persist as JSON and reload; a broken file is a typed error`() async throws {
        let file = SettingsFile(path: fixture.directory.path + "/config/ondevice/settings.json")
        var deps = fixture.dependencies(settingsFile: file)
        deps.initialSettings = nil
        let runtime = try await fixture.runtime(deps)
        try await runtime.settings.update { $0.keepAliveSeconds = -1; $0.contextLength = 512 }
        let reloaded = try file.load()
        #expect(reloaded.keepAliveSeconds == -1 && reloaded.contextLength == 512)
        let json = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(json.contains("\"contextLength\" : 512"))

        await #expect(throws: RuntimeError.self) { try await runtime.settings.update { $0.memoryFraction = 2 } }
        #expect(try file.load().contextLength == 512)  // a rejected change is neither saved nor applied
        #expect(await runtime.settings.settings.memoryFraction == MemoryBudgetPolicy.defaultFraction)

        try "{\"contextLength\": 0}".write(toFile: file.path, atomically: true, encoding: .utf8)
        await #expect(throws: RuntimeError.settingsInvalid(path: file.path, detail: "contextLength must be at least 1, not 0")) {
            try await OnDeviceRuntime.make(deps)
        }
    }

    @Test func `the settings path follows XDG and can be overridden`() {
        #expect(SettingsFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/h"]) == "/cfg/ondevice/settings.json")
        #expect(SettingsFile.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/ondevice/settings.json")
        #expect(SettingsFile.defaultPath(environment: ["ONDEVICE_SETTINGS": "/x.json", "HOME": "/h"]) == "/x.json")
    }

    @Test func `keep-alive persists with Ollama's signs`() throws {
        #expect(KeepAlive(seconds: 0) == .unloadImmediately)
        #expect(KeepAlive(seconds: -1) == .forever)
        #expect(KeepAlive(seconds: 300) == .standard)
        let data = try JSONEncoder().encode([KeepAlive.forever, .unloadImmediately, .duration(.seconds(90))])
        #expect(String(decoding: data, as: UTF8.self) == "[-1,0,90]")
        #expect(try JSONDecoder().decode([KeepAlive].self, from: data) == [.forever, .unloadImmediately, .duration(.seconds(90))])
    }
}

/// Each text op's model when the user has not chosen one, and one model for all once they have.
@Suite struct TextModelPerOpTests {
    @Test func `unset, translate runs on Qwen 2.5 and the other text ops on SmolLM2`() throws {
        let unset = RuntimeSettings()
        #expect(unset.textModel == nil)
        #expect(unset.textModelId(for: .translate) == "qwen2.5-coder-0.5b-instruct-q4_k_m")
        for op in [Op.generate, .chat, .summarize, .proofread] { #expect(unset.textModelId(for: op) == "smollm2-135m-instruct-q4_1") }
        let backend = RuntimeConfiguration(revision: 1, settings: unset, textModelFingerprint: nil).identity.textGeneration
        #expect(backend.modelId == "smollm2-135m-instruct-q4_1" && backend.translationModelId == "qwen2.5-coder-0.5b-instruct-q4_k_m")

        var chosen = RuntimeSettings()
        chosen.textModel = "my-model"
        for op in [Op.generate, .chat, .summarize, .translate, .proofread] { #expect(chosen.textModelId(for: op) == "my-model") }
        let same = RuntimeConfiguration(revision: 1, settings: chosen, textModelFingerprint: nil).identity.textGeneration
        #expect(same.modelId == "my-model" && same.translationModelId == "my-model")
    }

    @Test func `a settings file without textModel leaves it unset, and one with it keeps it`() throws {
        let none = try JSONDecoder().decode(RuntimeSettings.self, from: Data(#"{"contextLength": 2048}"#.utf8))
        #expect(none.textModel == nil && none.contextLength == 2048)
        let some = try JSONDecoder().decode(RuntimeSettings.self, from: Data(#"{"textModel": "gemma3-270m-q4_k_m"}"#.utf8))
        #expect(some.textModel == "gemma3-270m-q4_k_m")
        #expect(throws: RuntimeError.self) {
            var bad = RuntimeSettings()
            bad.textModel = "../escape"
            _ = try bad.validated(path: "settings.json")
        }
    }
}
