import Foundation

/// Downloads a model into staging and moves it into place, under the model's lock file.
///
/// Invariant: `<root>/<repo>/<revision>/<variant>` appears by one `rename` of a staging directory
/// whose every file has been verified, so a model is whole or absent, whatever is killed when.
struct ModelInstaller: Sendable {
    let configuration: StoreConfiguration
    let layout: StoreLayout

    /// Installs `entry` unless another pull (task or process) has meanwhile. `replaceExisting` is
    /// set when the caller found the installed copy invalid. Returns the entry with the sizes and
    /// digests actually installed (custom entries may not have known them).
    func install(_ entry: CatalogEntry, replaceExisting: Bool, meter: ProgressMeter) async throws(StoreError) -> CatalogEntry {
        try await withModelLock(entry) { @Sendable () async throws(StoreError) -> CatalogEntry in
            let final = layout.modelDirectory(entry)
            if FileSystem.exists(final) {
                if !replaceExisting, ModelValidator.sizesMatch(entry, in: final) { return entry }
                try moveToTrash(final)
            }
            let staging = layout.stagingDirectory(entry)
            try FileSystem.makeDirectories(staging)
            try checkFreeSpace(entry, staging: staging)
            let resolved = try await downloadAll(entry, staging: staging, meter: meter)
            meter.finish()
            try moveIntoPlace(resolved, from: staging)
            return resolved
        }
    }

    /// Copies local files (`sources[i]` for `entry.files[i]`) into the model directory, hashing
    /// while copying; files with a known digest must match it. Replaces any existing copy.
    func installCopies(_ entry: CatalogEntry, sources: [String]) async throws(StoreError) -> CatalogEntry {
        try await withModelLock(entry) { @Sendable () async throws(StoreError) -> CatalogEntry in
            let staging = layout.stagingDirectory(entry)
            FileSystem.removeTree(staging)
            var resolved = entry
            do throws(StoreError) {
                for (index, file) in entry.files.enumerated() {
                    let target = staging + "/" + file.name
                    try FileSystem.makeDirectories((target as NSString).deletingLastPathComponent)
                    let partial = try PartialFile(path: target + ".partial", onProgress: { _ in }, onDiskFull: {
                        .insufficientStorage(needed: file.bytes ?? 0, free: configuration.freeSpace.freeBytes(at: staging) ?? 0)
                    })
                    try FileSystem.read(sources[index]) { chunk throws(StoreError) in try partial.append(chunk) }
                    let digest = try partial.finish()
                    if let expected = file.bytes, expected != partial.length {
                        throw .sizeMismatch(file: file.name, expected: expected, actual: partial.length)
                    }
                    if let expected = file.sha256, expected != digest {
                        throw .checksumMismatch(file: file.name, expected: expected, actual: digest)
                    }
                    try FileSystem.rename(target + ".partial", to: target)
                    resolved.files[index].bytes = partial.length
                    resolved.files[index].sha256 = digest
                }
            } catch {
                FileSystem.removeTree(staging)
                throw error
            }
            if FileSystem.exists(layout.modelDirectory(entry)) { try moveToTrash(layout.modelDirectory(entry)) }
            try moveIntoPlace(resolved, from: staging)
            return resolved
        }
    }

    /// Runs `body` holding the model's lock file.
    func withModelLock<R: Sendable>(_ entry: CatalogEntry, _ body: @Sendable () async throws(StoreError) -> R) async throws(StoreError) -> R {
        try FileSystem.makeDirectories(layout.root + "/.locks")
        let lock = try await FileLock.acquire(layout.lockPath(entry))
        do {
            let result = try await body()
            lock.release()
            return result
        } catch {
            lock.release()
            throw error
        }
    }

    /// The one step that makes a model visible, then its record (validated snapshot, times).
    private func moveIntoPlace(_ entry: CatalogEntry, from staging: String) throws(StoreError) {
        let final = layout.modelDirectory(entry)
        try FileSystem.makeDirectories((final as NSString).deletingLastPathComponent)
        try FileSystem.rename(staging, to: final)
        var record = ModelRecord.load(layout.recordPath(entry)) ?? ModelRecord(id: entry.id)
        record.installedAt = Date()
        record.lastUsed = Date()
        record.validatedSnapshot = DirectorySnapshot.take(of: final)
        record.validatedFingerprint = entry.fingerprint
        try record.save(layout.recordPath(entry))
    }

    /// Renames a directory aside and deletes it, so it vanishes from the layout in one step.
    func moveToTrash(_ path: String) throws(StoreError) {
        try FileSystem.makeDirectories(layout.trashDirectory)
        let aside = layout.trashDirectory + "/\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileSystem.rename(path, to: aside)
        FileSystem.removeTree(aside)
    }

    private func checkFreeSpace(_ entry: CatalogEntry, staging: String) throws(StoreError) {
        var needed: Int64 = 0
        for file in entry.files {
            guard let bytes = file.bytes else { continue }
            let have = FileSystem.fileSize(staging + "/" + file.name) ?? FileSystem.fileSize(staging + "/" + file.name + ".partial") ?? 0
            needed += max(0, bytes - have)
        }
        guard needed > 0 else { return }
        let free = configuration.freeSpace.freeBytes(at: staging) ?? Int64.max
        if free < needed { throw .insufficientStorage(needed: needed, free: free) }
    }

    private func downloadAll(_ entry: CatalogEntry, staging: String, meter: ProgressMeter) async throws(StoreError) -> CatalogEntry {
        var jobs = [(Int, DownloadJob)]()
        for (index, file) in entry.files.enumerated() {
            let target = staging + "/" + file.name
            try FileSystem.makeDirectories((target as NSString).deletingLastPathComponent)
            // A file verified by an earlier, interrupted run goes back to `.partial`: it is then
            // re-hashed (no network needed when its size is known) rather than trusted.
            if FileSystem.exists(target) { try FileSystem.rename(target, to: target + ".partial") }
            let job = DownloadJob(name: file.name, url: try configuration.sourceURL(for: entry, file: file),
                                  partialPath: target + ".partial", expectedBytes: file.bytes, expectedSHA256: file.sha256,
                                  token: tokenFor(entry))
            jobs.append((index, job))
        }
        let downloader = FileDownloader(fetcher: configuration.fetcher, retry: configuration.retry,
                                        sleeper: configuration.sleeper, stallTimeout: configuration.stallTimeout)
        let freeSpace = configuration.freeSpace
        let results: Result<[Int: DownloadedFile], StoreError> = await withTaskGroup(of: (Int, Result<DownloadedFile, StoreError>).self) { group in
            var pending = jobs[...]
            var done = [Int: DownloadedFile]()
            func startNext() {
                guard let (index, job) = pending.popFirst() else { return }
                group.addTask {
                    do throws(StoreError) {
                        let file = try await downloader.download(job, progress: { meter.add($0) }, resumed: { meter.resumed($0) }, diskFull: {
                            .insufficientStorage(needed: max(0, (job.expectedBytes ?? 0) - (FileSystem.fileSize(job.partialPath) ?? 0)),
                                                 free: freeSpace.freeBytes(at: job.partialPath) ?? 0)
                        })
                        try FileSystem.rename(job.partialPath, to: String(job.partialPath.dropLast(".partial".count)))
                        return (index, .success(file))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<configuration.maxConcurrentFiles { startNext() }
            while let (index, result) = await group.next() {
                switch result {
                case .success(let file):
                    done[index] = file
                    startNext()
                case .failure(let error):
                    group.cancelAll()  // one bad file fails the model; the others keep their .partial
                    return .failure(error)
                }
            }
            return .success(done)
        }
        let files = try results.get()
        var resolved = entry
        for (index, file) in files {
            resolved.files[index].bytes = file.bytes
            resolved.files[index].sha256 = file.sha256
        }
        return resolved
    }

    private func tokenFor(_ entry: CatalogEntry) -> String? {
        if case .huggingFace = entry.source { return configuration.hfToken }
        return nil
    }
}

extension ModelValidator {
    /// Every listed file present with its expected size (no hashing).
    static func sizesMatch(_ entry: CatalogEntry, in directory: String) -> Bool {
        entry.files.allSatisfy { file in
            guard let size = FileSystem.fileSize(directory + "/" + file.name) else { return false }
            return file.bytes.map { $0 == size } ?? true
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
