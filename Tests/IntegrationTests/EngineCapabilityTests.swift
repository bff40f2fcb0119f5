import Foundation
import ModelStore
import OnDevice
import Runtime
import Testing
import TestSupport

/// Capability answers for the speech and embedding ops: ready with an exact estimate when the
/// model is installed, a download of the catalog's bytes when it is not, and "unsupported" only
/// for a kind without an engine.
@Suite struct EngineCapabilityTests {
    static let ops: [Op] = [.transcribe, .vad, .embed, .search]

    static func runtime(root: String? = nil, engines: EngineRegistry = .complete) async throws -> OnDeviceRuntime {
        var environment = ProcessInfo.processInfo.environment
        if let root { environment["ONDEVICE_HOME"] = root }
        var dependencies = RuntimeDependencies.complete(environment: environment)
        dependencies.settingsFile = nil
        dependencies.pressureProbe = nil
        dependencies.engines = engines
        return try await OnDeviceRuntime.make(dependencies)
    }

    @Test func `the installed vision model is ready, and classify leases it through the runtime`() async throws {
        _ = try #require(TestModels.path("efficientnet-lite0-57934424.pth"),
                         "EfficientNet-Lite0 not installed: run scripts/setup.sh all")
        let runtime = try await Self.runtime()
        let report = try await runtime.capability(.classify)
        #expect(report.status == .ready, "\(report.status)")
        let estimate = try #require(report.residentEstimate)
        let lease = try await runtime.lease(ResidentVisionModel.self, modelId: report.modelId, options: LoadOptions())
        // The folded weights it holds are the checkpoint's float tensors the estimate counted.
        #expect(lease.model.model.residentBytes <= estimate.weightBytes && lease.model.model.residentBytes > estimate.weightBytes * 9 / 10)
        #expect(await runtime.residency.snapshot().modelIds == [report.modelId])
        await lease.release()
        await runtime.shutdown()
    }

    @Test func `installed speech and embedding models are ready with estimates read from their files`() async throws {
        _ = try #require(TestModels.path("silero_vad_16k.safetensors"), "models not installed: run scripts/setup.sh")
        let runtime = try await Self.runtime()
        for op in Self.ops {
            let report = try await runtime.capability(op)
            #expect(report.status == .ready, "\(op): \(report.status)")
            #expect(!report.estimateIsLowerBound)
            let estimate = try #require(report.residentEstimate)
            // The weights are mapped whole (an embedding model's less the linear weights it repacks
            // to int16, whose file pages it releases), and every kind needs working memory too.
            let entry = try await runtime.store.get(report.modelId).entry
            let weightFile = try #require(entry.files.first {
                $0.name.hasSuffix("model.bin") || $0.name.hasSuffix(".safetensors") || $0.name.hasSuffix(".gguf")
            })
            if op == .embed || op == .search {
                let file = try #require(weightFile.bytes)
                #expect(Int64(estimate.weightBytes) < file && Int64(estimate.weightBytes) > file / 4, "\(op)")
            } else {
                #expect(Int64(estimate.weightBytes) == weightFile.bytes, "\(op)")
            }
            #expect(estimate.scratchBytes > 0, "\(op)")
            print("[capability] \(op.rawValue) → \(report.modelId): weights \(estimate.weightBytes), cache \(estimate.cacheBytes), scratch \(estimate.scratchBytes)")
        }
        let nomic = try await runtime.capability(modelId: "nomic-embed-text-v1.5-f16")
        if nomic.downloadBytesRemaining == 0 { #expect(nomic.status == .ready && !nomic.estimateIsLowerBound) }
        await runtime.shutdown()
    }

    @Test func `on an empty store each op needs its catalog download`() async throws {
        let home = try TemporaryDirectory()
        let runtime = try await Self.runtime(root: home.file("models"))
        for op in Self.ops {
            let report = try await runtime.capability(op)
            let entry = try await runtime.store.get(op.defaultModelId).entry
            #expect(report.status == .needsDownload(bytes: entry.knownBytes), "\(op): \(report.status)")
            #expect(report.estimateIsLowerBound)
        }
        await runtime.shutdown()
    }

    @Test func `a kind without an engine is unsupported and says which kind`() async throws {
        let home = try TemporaryDirectory()
        let runtime = try await Self.runtime(root: home.file("models"))
        // Every kind of the catalog has an engine in the complete registry, vision included.
        let classify = try await runtime.capability(.classify)
        #expect(classify.status == .needsDownload(bytes: try await runtime.store.get(Op.classify.defaultModelId).entry.knownBytes))
        // The runtime layer alone has no embedding engine: that is why the CLI and the public
        // API use the complete registry.
        let bare = try await Self.runtime(root: home.file("models"), engines: EngineRegistry())
        #expect(try await bare.capability(.embed).status == .unsupported(reason: "no engine for embedding models in this build"))
        #expect(try await bare.capability(.transcribe).status != .unsupported(reason: "no engine for asr models in this build"))
        await runtime.shutdown()
        await bare.shutdown()
    }
}

/// The public capability question answers with the instance's own models and every engine.
@Suite struct PublicCapabilityTests {
    @Test func `an OnDeviceAI instance answers every operation, ready for the installed speech and embedding models`() async throws {
        _ = try #require(TestModels.path("silero_vad_16k.safetensors"), "models not installed: run scripts/setup.sh")
        let ai = OnDeviceAI()
        for operation in [Capability.Operation.transcribe, .detectSpeech, .embed, .search] {
            let answer = try await ai.capability(operation)
            #expect(answer.status == .ready, "\(operation): \(answer.status)")
            #expect(!answer.estimateIsLowerBound && (answer.residentEstimateBytes ?? 0) > 0)
        }
        #expect(try await ai.capability(.speak).status == .ready)
        var c = OnDeviceAI.Configuration()
        let home = try TemporaryDirectory()
        c.storeRoot = home.file("models")
        let empty = OnDeviceAI(configuration: c)
        let transcribe = try await empty.capability(.transcribe)
        #expect(transcribe.status == .needsDownload(bytes: transcribe.downloadBytesRemaining) && transcribe.downloadBytesRemaining > 0)
        #expect(transcribe.model == "whisper-tiny.en-ct2" && transcribe.estimateIsLowerBound)
    }
}
