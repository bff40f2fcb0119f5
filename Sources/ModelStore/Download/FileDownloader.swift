import Foundation

/// One file to fetch into a `.partial` path.
package struct DownloadJob: Sendable {
    package var name: String
    package var url: URL
    package var partialPath: String
    package var expectedBytes: Int64?
    package var expectedSHA256: String?
    /// Sent as `Authorization: Bearer` to the original host only, never across a redirect to another.
    package var token: String?
}

/// A file that finished downloading and passed its checks.
package struct DownloadedFile: Sendable, Equatable {
    package var bytes: Int64
    package var sha256: String
}

/// Downloads one file with resume, retries, redirects and verification.
///
/// Starting a download is resuming it: the bytes already in `<file>.partial` are hashed and a
/// `Range` asks for the rest (with `If-Range` when an ETag was recorded). A 200 in reply restarts
/// from zero. Connection errors, stalls, 5xx and 429 are retried with backoff (Retry-After wins);
/// an attempt that made progress resets the count.
package struct FileDownloader: Sendable {
    package var fetcher: any HTTPFetching
    package var retry: RetryPolicy
    package var sleeper: any Sleeping
    package var stallTimeout: Double
    package var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    package init(fetcher: any HTTPFetching, retry: RetryPolicy, sleeper: any Sleeping, stallTimeout: Double) {
        self.fetcher = fetcher
        self.retry = retry
        self.sleeper = sleeper
        self.stallTimeout = stallTimeout
    }

    /// `progress` gets byte deltas as the file grows (negative on a restart), `resumed` the bytes
    /// found from an earlier run, `diskFull` builds the error for ENOSPC.
    package func download(_ job: DownloadJob, progress: @escaping @Sendable (Int64) -> Void,
                          resumed: @Sendable (Int64) -> Void = { _ in },
                          diskFull: @escaping @Sendable () -> StoreError) async throws(StoreError) -> DownloadedFile {
        let file = try PartialFile(path: job.partialPath, onProgress: progress, onResumed: resumed, onDiskFull: diskFull)
        if let expected = job.expectedBytes, file.length > expected { try file.restart() }
        var failures = 0
        var retriedFromZero = false
        while true {
            if Task.isCancelled { throw .cancelled }
            let before = file.length
            let notes = ResponseNotes()
            do throws(StoreError) {
                let alreadyWhole = job.expectedBytes.map { $0 == file.length && $0 > 0 } ?? false
                if !alreadyWhole { try await attempt(job, file: file, notes: notes) }
                return try verify(job, file: file, notes: notes)
            } catch {
                if error == .cancelled { throw error }
                if case .checksumMismatch = error, file.resumedBytes > 0, !retriedFromZero {
                    // The prefix came from an earlier run and may be what is wrong: one clean try.
                    retriedFromZero = true
                    try file.restart()
                    continue
                }
                guard error.isTransient else {
                    if case .checksumMismatch = error { discard(file) }
                    if case .sizeMismatch = error { discard(file) }
                    throw error
                }
                if file.length > before { failures = 0 }
                failures += 1
                guard failures < retry.maxAttempts else { throw error }
                try await sleeper.sleep(seconds: retry.delay(attempt: failures, retryAfter: notes.retryAfter, unitRandom: random()))
            }
        }
    }

    private func discard(_ file: PartialFile) {
        FileSystem.removeTree(file.path)
        FileSystem.removeTree(file.path + ".etag")
    }

    private func verify(_ job: DownloadJob, file: PartialFile, notes: ResponseNotes) throws(StoreError) -> DownloadedFile {
        let digest = try file.finish()
        if let expected = job.expectedBytes ?? notes.linkedSize, expected != file.length {
            throw .sizeMismatch(file: job.name, expected: expected, actual: file.length)
        }
        if let expected = job.expectedSHA256 ?? notes.linkedSHA256, expected != digest {
            throw .checksumMismatch(file: job.name, expected: expected, actual: digest)
        }
        FileSystem.removeTree(file.path + ".etag")
        return DownloadedFile(bytes: file.length, sha256: digest)
    }

    /// One pass over the redirect chain and the body.
    private func attempt(_ job: DownloadJob, file: PartialFile, notes: ResponseNotes) async throws(StoreError) {
        var url = job.url
        for _ in 0..<10 {
            var headers = [(name: String, value: String)]()
            if let token = job.token, url.host == job.url.host { headers.append(("Authorization", "Bearer \(token)")) }
            if file.length > 0 {
                headers.append(("Range", "bytes=\(file.length)-"))
                if let etag = FileSystem.readData(file.path + ".etag").map({ String(decoding: $0, as: UTF8.self) }), !etag.isEmpty {
                    headers.append(("If-Range", etag))
                }
            }
            notes.location = nil
            let urlText = url.absoluteString
            let handler = HTTPResponseHandler(
                head: { head throws(StoreError) in try self.accept(head, job: job, url: urlText, file: file, notes: notes) },
                body: { bytes throws(StoreError) in try file.append(bytes) })
            try await fetcher.get(HTTPRequest(url: url, headers: headers), stallTimeout: stallTimeout, handler: handler)
            if notes.rangeNotSatisfiable {
                // Asked past the end: either the partial is already whole or it is junk.
                if let total = notes.total, total == file.length { return }
                try file.restart()
                throw .connection(url: urlText, reason: "range not satisfiable; restarting from zero")
            }
            guard let location = notes.location else { return }
            guard let next = URL(string: location, relativeTo: url)?.absoluteURL else { throw .unsupportedURL(url: location) }
            url = next
        }
        throw .tooManyRedirects(url: job.url.absoluteString)
    }

    /// Decides what to do with a response head; true when its body should be written.
    private func accept(_ head: HTTPResponseHead, job: DownloadJob, url: String, file: PartialFile, notes: ResponseNotes) throws(StoreError) -> Bool {
        if let linked = head.headers["x-linked-etag"].map(ResponseNotes.unquote), CatalogLock.isSHA256Hex(linked) {
            notes.linkedSHA256 = linked
        }
        if let size = head.headers["x-linked-size"].flatMap({ Int64($0) }) { notes.linkedSize = size }
        switch head.status {
        case 301, 302, 303, 307, 308:
            guard let location = head.headers["location"] else { throw .http(status: head.status, url: url) }
            notes.location = location
            return false
        case 200:
            // Refuse a body of the wrong size before downloading it.
            if let expected = job.expectedBytes, let length = head.contentLength, length != expected {
                throw .sizeMismatch(file: job.name, expected: expected, actual: length)
            }
            if file.length > 0 { try file.restart() }  // Range ignored (or If-Range failed): full body follows
            notes.record(etag: head.headers["etag"], for: file)
            return true
        case 206:
            let range = head.headers["content-range"] ?? ""
            guard let (start, total) = ResponseNotes.parseContentRange(range), start == file.length else {
                try file.restart()
                throw .badContentRange(url: url, header: range)
            }
            if let expected = job.expectedBytes, let total, total != expected {
                throw .sizeMismatch(file: job.name, expected: expected, actual: total)
            }
            notes.total = total
            notes.record(etag: head.headers["etag"], for: file)
            return true
        case 416:
            notes.rangeNotSatisfiable = true
            notes.total = ResponseNotes.parseUnsatisfiedRange(head.headers["content-range"] ?? "")
            return false
        default:
            notes.retryAfter = head.headers["retry-after"].flatMap { RetryPolicy.parseRetryAfter($0) }
            throw .http(status: head.status, url: url)
        }
    }
}
