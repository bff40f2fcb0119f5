import CLISupport
import Foundation
import OnDevice

/// `ondevice capability OP|MODEL|all [--json]`: whether an op or model can run on this machine
/// now, and why not. Answers without downloading or loading anything.
enum CapabilityCommand {
    static let ops = ["generate", "chat", "summarize", "translate", "proofread", "transcribe", "vad", "embed", "search", "speak"]

    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json"])
        guard let target = a.positionals.first else { throw CLIError.missingArgument("OP, MODEL or all") }
        guard a.positionals.count == 1 else { throw CLIError.io("expected one OP or MODEL, got \(a.positionals.count)") }
        let ai = OnDeviceAI()
        var answers: [Capability] = []
        if target == "all" {
            for name in ops {
                guard let operation = Capability.Operation(name: name) else { continue }
                answers.append(try await ai.capability(operation))
            }
            for model in try await ai.modelLibrary().list() { answers.append(try await ai.capability(model: model.id)) }
        } else if let operation = Capability.Operation(name: target) {
            answers.append(try await ai.capability(operation))
        } else {
            do {
                answers.append(try await ai.capability(model: target))
            } catch let error as OnDeviceError where error.code == .modelUnavailable || error.code == .invalidArgument {
                throw CLIError.io("'\(target)' is neither an op (\(ops.joined(separator: ", "))) nor a catalog model id")
            }
        }
        for answer in answers {
            if a.has("json") { try printJSON(json(answer)) } else { print(text(answer)) }
        }
    }

    static func text(_ c: Capability) -> String {
        let subject = c.operation.map { "\($0.name) → \(c.model)" } ?? c.model
        var lines = ["\(subject) (\(c.kind.rawValue)): \(describe(c))"]
        var disk = "  download remaining \(byteText(c.downloadBytesRemaining))"
        if let free = c.freeDiskBytes { disk += ", free disk \(byteText(free))" }
        lines.append(disk)
        if let e = c.residentEstimate {
            let detail = c.estimateIsLowerBound ? "weight files only: a lower bound"
                : "weights \(byteText(e.weightBytes)), KV cache \(byteText(e.cacheBytes)), scratch \(byteText(e.scratchBytes))"
            lines.append("  resident estimate \(byteText(e.totalBytes)) (\(detail)) of a \(byteText(c.memoryBudgetBytes)) budget"
                         + (c.isResident ? ", loaded now" : ""))
        }
        let cpu = c.processor, flags = cpu.flags.joined(separator: " ")
        lines.append("  cpu \(cpu.architecture), \(cpu.cores) cores, \(cpu.kernels) kernels" + (flags.isEmpty ? "" : " (\(flags))"))
        return lines.joined(separator: "\n")
    }

    static func describe(_ c: Capability) -> String {
        switch c.status {
        case .ready: "ready"
        case .needsDownload(let bytes): "needs download (\(byteText(bytes)))"
        case .downloading(let received, let total):
            c.downloadProgress == nil ? "downloading" : "downloading (\(byteText(received))" + (total.map { " of \(byteText($0))" } ?? "") + ")"
        case let .insufficientStorage(needed, free): "insufficient storage (needs \(byteText(needed)), \(byteText(free)) free)"
        case let .insufficientMemory(needed, budget): "insufficient memory (needs \(byteText(needed)), budget \(byteText(budget)))"
        case .unsupported(let reason): "unsupported: \(reason)"
        }
    }

    static func json(_ c: Capability) -> [String: Any] {
        var o: [String: Any] = [
            "status": c.status.name, "model": c.model, "kind": c.kind.rawValue,
            "download_bytes_remaining": c.downloadBytesRemaining, "estimate_is_lower_bound": c.estimateIsLowerBound,
            "memory_budget_bytes": c.memoryBudgetBytes, "resident": c.isResident,
            "cpu": ["architecture": c.processor.architecture, "cores": c.processor.cores, "kernels": c.processor.kernels,
                    "flags": c.processor.flags],
        ]
        if let operation = c.operation { o["op"] = operation.name }
        if let free = c.freeDiskBytes { o["free_disk_bytes"] = free }
        if let e = c.residentEstimate {
            o["resident_estimate_bytes"] = e.totalBytes
            o["resident_estimate"] = ["weights": e.weightBytes, "kv_cache": e.cacheBytes, "scratch": e.scratchBytes]
        }
        switch c.status {
        case .ready: break
        case .needsDownload(let bytes): o["needed_bytes"] = bytes
        case .downloading:
            if let p = c.downloadProgress {
                o["progress"] = ["received_bytes": p.receivedBytes, "total_bytes": p.totalBytes as Any, "bytes_per_second": p.bytesPerSecond]
            }
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
