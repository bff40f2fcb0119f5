import Foundation
import Platform
import Testing
import ModelStore

/// The `.partial` file under both SHA-256 backends (SHA-NI and the portable rounds), hashed by
/// reading the file back behind the writer, across resume, restart and the periodic writeback.
struct PartialFileTests {
    static var backends: [SHA256.Backend] { SHA256.Backend.hardwareAvailable ? [.hardware, .portable] : [.portable] }

    @Test(arguments: backends)
    func `digest covers resumed and appended bytes, and a restart forgets both`(backend: SHA256.Backend) throws {
        let path = NSTemporaryDirectory() + "/ondevice-partial-\(getpid())-\(backend).partial"
        defer { FileSystem.removeTree(path) }
        // Over 8 MiB, so the writeback step runs; odd chunk sizes, so block tails are carried.
        let data = sampleBytes(9 << 20 + 12_345, seed: 77)
        let progress = Locked<Int64>(0)
        func open() throws -> PartialFile {
            try PartialFile(path: path, backend: backend, onProgress: { delta in progress.withLock { $0 += delta } },
                            onDiskFull: { .insufficientStorage(needed: 0, free: 0) })
        }
        let cut = 5 << 20 + 77
        do {
            let first = try open()
            try append(data[0..<cut], to: first, chunk: 65_537)
            #expect(first.length == Int64(cut))
        }
        let resumed = try open()
        #expect(resumed.resumedBytes == Int64(cut))
        try append(data[cut...], to: resumed, chunk: 262_139)
        #expect(try resumed.finish() == SHA256.hex(of: data, backend: .portable))
        #expect(contents(path) == data)

        try resumed.restart()
        let other = Array(data[0..<100_000].reversed())
        try append(other[...], to: resumed, chunk: 4096)
        #expect(try resumed.finish() == SHA256.hex(of: other, backend: .portable))
        #expect(resumed.length == Int64(other.count))
        // +cut, +(rest), -(whole file) on restart, +other: the net is what the file now holds.
        #expect(progress.withLock { $0 } == Int64(other.count))
    }

    @Test(arguments: backends)
    func `a restart while the hasher is reading back forgets what it read`(backend: SHA256.Backend) throws {
        let path = NSTemporaryDirectory() + "/ondevice-partial-restart-\(getpid())-\(backend).partial"
        defer { FileSystem.removeTree(path) }
        let file = try PartialFile(path: path, backend: backend, onProgress: { _ in }, onDiskFull: { .insufficientStorage(needed: 0, free: 0) })
        // Several read-back passes' worth, then a restart with no digest taken in between.
        try append(sampleBytes(24 << 20, seed: 5)[...], to: file, chunk: 1 << 20)
        try file.restart()
        let kept = sampleBytes(3 << 20 + 5, seed: 6)
        try append(kept[...], to: file, chunk: 300_001)
        #expect(try file.finish() == SHA256.hex(of: kept, backend: .portable))
        #expect(contents(path) == kept)
    }

    private func append(_ bytes: ArraySlice<UInt8>, to file: PartialFile, chunk: Int) throws {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let end = min(bytes.endIndex, offset + chunk)
            try Array(bytes[offset..<end]).withBytes { raw throws(StoreError) in try file.append(raw) }
            offset = end
        }
    }
}
