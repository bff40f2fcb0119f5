import ModelStore
import Runtime
import Testing

/// Each capability status, from the real store on a temporary root with fakes for disk and memory.
@Suite struct CapabilityTests {
    let fixture: RuntimeFixture
    init() throws { fixture = try RuntimeFixture() }

    @Test func `an installed model that fits is ready, with an exact estimate`() async throws {
        let (entry, bytes) = fixture.tinyModel("tiny")
        let runtime = try await fixture.runtime(fixture.dependencies(), models: [entry])
        _ = try await runtime.store.pull("tiny")
        let report = try await runtime.capability(modelId: "tiny")
        #expect(report.status == .ready)
        #expect(report.downloadBytesRemaining == 0)
        #expect(!report.estimateIsLowerBound)
        #expect((report.residentEstimateBytes ?? 0) > bytes.count)  // weights plus KV cache and scratch
        #expect(report.cpu.kernelPath == "avx2")
    }

    @Test func `a model not on disk needs its whole download, estimated from its files`() async throws {
        let (entry, bytes) = fixture.tinyModel("tiny")
        let runtime = try await fixture.runtime(fixture.dependencies(), models: [entry])
        let report = try await runtime.capability(modelId: "tiny")
        #expect(report.status == .needsDownload(bytes: Int64(bytes.count)))
        #expect(report.estimateIsLowerBound && report.residentEstimateBytes == bytes.count)
    }

    @Test func `a download larger than the free disk is insufficient storage`() async throws {
        let (entry, bytes) = fixture.tinyModel("tiny")
        let runtime = try await fixture.runtime(fixture.dependencies(freeBytes: 1000), models: [entry])
        let report = try await runtime.capability(modelId: "tiny")
        #expect(report.status == .insufficientStorage(needed: Int64(bytes.count), free: 1000))
        #expect(report.freeDiskBytes == 1000)
    }

    @Test func `a model larger than the memory budget is insufficient memory`() async throws {
        let (entry, _) = fixture.tinyModel("tiny")
        let runtime = try await fixture.runtime(fixture.dependencies(budget: 10_000), models: [entry])
        _ = try await runtime.store.pull("tiny")
        let report = try await runtime.capability(modelId: "tiny")
        guard case let .insufficientMemory(needed, budget) = report.status else {
            Issue.record("expected insufficientMemory, got \(report.status)")
            return
        }
        #expect(budget == 10_000 && needed == report.residentEstimateBytes && needed > budget)
    }

    @Test func `a kind with no engine in this build is unsupported, and only that`() async throws {
        let runtime = try await fixture.runtime(fixture.dependencies())
        // Embedding models need Retrieval, above the runtime: the runtime layer alone has no engine.
        let report = try await runtime.capability(.embed)
        #expect(report.status == .unsupported(reason: "no engine for embedding models in this build"))
        #expect(report.modelId == Op.embed.defaultModelId)
        // Speech recognition, voice activity, synthesis and vision have engines in the runtime layer itself.
        for op in [Op.transcribe, .vad, .speak, .classify] {
            let status = try await runtime.capability(op).status
            guard case .needsDownload = status else { Issue.record("\(op): \(status)"); continue }
        }
        // The text ops use an LLM, which has an engine: never unsupported, whatever the CPU flags.
        let bare = CPUFeatures(architecture: "x86_64", flags: [], cores: 1)
        var deps = fixture.dependencies()
        deps.cpu = bare
        let plain = try await OnDeviceRuntime.make(deps)
        #expect(try await plain.capability(.summarize).status == .needsDownload(bytes: 98_362_432))
    }

    @Test func `a pull in progress is downloading, with its progress`() async throws {
        let (entry, _) = fixture.tinyModel("tiny")
        fixture.server.inject([.stall(afterBytes: 4096, seconds: 60)], for: "/org/tiny/resolve/main/model.gguf")
        let runtime = try await fixture.runtime(fixture.dependencies(), models: [entry])
        let pull = Task { try await runtime.downloads.pull("tiny") }
        defer { pull.cancel() }
        var report = try await runtime.capability(modelId: "tiny")
        var polls = 0
        while polls < 2000, report.status.isDownloadingWithProgress == false {
            try await Task.sleep(for: .milliseconds(5))  // waiting for the server's bytes, not timing them
            report = try await runtime.capability(modelId: "tiny")
            polls += 1
        }
        guard case .downloading(let progress?) = report.status else {
            Issue.record("expected downloading with progress, got \(report.status)")
            return
        }
        #expect(progress.id == "tiny" && progress.receivedBytes == 4096)
    }

    @Test func `every op gets an answer on an empty store`() async throws {
        let runtime = try await fixture.runtime(fixture.dependencies())
        for op in Op.allCases {
            let report = try await runtime.capability(op)
            #expect(report.op == op)
            switch report.status {
            case .needsDownload, .unsupported: break
            default: Issue.record("\(op): \(report.status)")
            }
        }
    }

    @Test func `the decision order puts the most fundamental obstacle first`() {
        let entry = CatalogEntry.huggingFace(id: "m", kind: .llm, license: "", repo: "o/m", revision: "main", variant: "v",
                                             files: [ModelFile(name: "m.gguf", bytes: 1000, sha256: nil, sourcePath: "m.gguf")])
        let cpu = CPUFeatures(architecture: "x86_64", flags: [], cores: 1)
        func facts(_ change: (inout CapabilityFacts) -> Void) -> CapabilityStatus {
            var f = CapabilityFacts(op: nil, entry: entry, install: .absent, bytesOnDisk: 0, freeDiskBytes: 10_000,
                                    estimate: MemoryEstimate(weightBytes: 1000), estimateIsLowerBound: true,
                                    budget: 5000, hasEngine: true, cpu: cpu)
            change(&f)
            return CapabilityReport.assess(f).status
        }
        #expect(facts { _ in } == .needsDownload(bytes: 1000))
        #expect(facts { $0.install = .partial; $0.bytesOnDisk = 400 } == .needsDownload(bytes: 600))
        #expect(facts { $0.install = .installed; $0.bytesOnDisk = 1000 } == .ready)
        #expect(facts { $0.freeDiskBytes = 10 } == .insufficientStorage(needed: 1000, free: 10))
        #expect(facts { $0.downloading = true; $0.freeDiskBytes = 10 } == .downloading(nil))
        #expect(facts { $0.budget = 999; $0.downloading = true } == .insufficientMemory(needed: 1000, budget: 999))
        #expect(facts { $0.hasEngine = false; $0.budget = 1 } == .unsupported(reason: "no engine for llm models in this build"))
        #expect(facts { $0.freeDiskBytes = nil } == .needsDownload(bytes: 1000))
    }
}

extension CapabilityStatus {
    /// A download that has reported progress.
    var isDownloadingWithProgress: Bool {
        if case .downloading(_?) = self { true } else { false }
    }
}
