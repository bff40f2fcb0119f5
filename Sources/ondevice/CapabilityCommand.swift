import Foundation
import ModelStore
import OnDevice
import Runtime

/// `ondevice capability OP|MODEL|all [--json]`: whether an op or model can run on this machine
/// now, and why not. Answers without downloading or loading anything.
enum CapabilityCommand {
    static let ops = ["generate", "chat", "summarize", "translate", "proofread", "transcribe", "vad", "embed", "search", "speak"]

    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json"])
        guard let target = a.positionals.first else { throw CLIError.missingArgument("OP, MODEL or all") }
        guard a.positionals.count == 1 else { throw CLIError.io("expected one OP or MODEL, got \(a.positionals.count)") }
        var dependencies = RuntimeDependencies.complete()
        dependencies.pressureProbe = nil  // a one-shot question needs no monitoring
        let runtime = try await OnDeviceRuntime.make(dependencies)
        var reports: [CapabilityReport] = []
        if target == "all" {
            for op in ops { reports.append(try await runtime.capability(Op.named(op))) }
            for entry in await runtime.store.catalog.entries { reports.append(try await runtime.capability(modelId: entry.id)) }
        } else if let op = Op(rawValue: target) {
            reports.append(try await runtime.capability(op))
        } else {
            do {
                reports.append(try await runtime.capability(modelId: target))
            } catch RuntimeError.store(.unknownModel), RuntimeError.store(.invalidModelId) {
                throw CLIError.io("'\(target)' is neither an op (\(ops.joined(separator: ", "))) nor a catalog model id")
            }
        }
        for report in reports {
            if a.has("json") { try printJSON(json(report)) } else { print(text(report)) }
        }
    }

    static func text(_ r: CapabilityReport) -> String {
        let subject = r.op.map { "\($0.rawValue) → \(r.modelId)" } ?? r.modelId
        var lines = ["\(subject) (\(r.kind.rawValue)): \(describe(r.status))"]
        var disk = "  download remaining \(ByteCount(r.downloadBytesRemaining))"
        if let free = r.freeDiskBytes { disk += ", free disk \(ByteCount(free))" }
        lines.append(disk)
        if let e = r.residentEstimate {
            let detail = r.estimateIsLowerBound ? "weight files only: a lower bound"
                : "weights \(ByteCount(e.weightBytes)), KV cache \(ByteCount(e.cacheBytes)), scratch \(ByteCount(e.scratchBytes))"
            lines.append("  resident estimate \(ByteCount(e.totalBytes)) (\(detail)) of a \(ByteCount(r.memoryBudgetBytes)) budget"
                         + (r.isResident ? ", loaded now" : ""))
        }
        let flags = r.cpu.notableFlags.joined(separator: " ")
        lines.append("  cpu \(r.cpu.architecture), \(r.cpu.cores) cores, \(r.cpu.kernelPath) kernels" + (flags.isEmpty ? "" : " (\(flags))"))
        return lines.joined(separator: "\n")
    }

    static func describe(_ status: CapabilityStatus) -> String {
        switch status {
        case .ready: "ready"
        case .needsDownload(let bytes): "needs download (\(ByteCount(bytes)))"
        case .downloading(let p?):
            "downloading (\(ByteCount(p.receivedBytes))" + (p.totalBytes.map { " of \(ByteCount($0))" } ?? "") + ")"
        case .downloading(nil): "downloading"
        case let .insufficientStorage(needed, free): "insufficient storage (needs \(ByteCount(needed)), \(ByteCount(free)) free)"
        case let .insufficientMemory(needed, budget): "insufficient memory (needs \(ByteCount(needed)), budget \(ByteCount(budget)))"
        case .unsupported(let reason): "unsupported: \(reason)"
        }
    }

    static func json(_ r: CapabilityReport) -> [String: Any] {
        var o: [String: Any] = [
            "status": r.status.name, "model": r.modelId, "kind": r.kind.rawValue,
            "download_bytes_remaining": r.downloadBytesRemaining, "estimate_is_lower_bound": r.estimateIsLowerBound,
            "memory_budget_bytes": r.memoryBudgetBytes, "resident": r.isResident,
            "cpu": ["architecture": r.cpu.architecture, "cores": r.cpu.cores, "kernels": r.cpu.kernelPath, "flags": r.cpu.notableFlags],
        ]
        if let op = r.op { o["op"] = op.rawValue }
        if let free = r.freeDiskBytes { o["free_disk_bytes"] = free }
        if let e = r.residentEstimate {
            o["resident_estimate_bytes"] = e.totalBytes
            o["resident_estimate"] = ["weights": e.weightBytes, "kv_cache": e.cacheBytes, "scratch": e.scratchBytes]
        }
        switch r.status {
        case .ready: break
        case .needsDownload(let bytes): o["needed_bytes"] = bytes
        case .downloading(let p):
            if let p { o["progress"] = ["received_bytes": p.receivedBytes, "total_bytes": p.totalBytes as Any, "bytes_per_second": p.bytesPerSecond] }
        case let .insufficientStorage(needed, free):
            o["needed_bytes"] = needed
            o["free_bytes"] = free
        case let .insufficientMemory(needed, budget):
            o["needed_bytes"] = needed
            o["budget_bytes"] = budget
        case .unsupported(let reason): o["reason"] = reason
        }
        return o
    }
}
