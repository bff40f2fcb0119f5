import Foundation
import Testing
import ModelStore
import TestSupport

/// A real full disk: a 256 KiB tmpfs mounted as the store root (needs root; skipped otherwise).
struct FullDiskTests {
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "/ondevice-mount-probe-\(getpid())"
        defer { rmdir(probe) }
        guard mkdir(probe, 0o755) == 0, mount("tmpfs", probe, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount2(probe, Int32(MNT_DETACH))
        return true
    }()

    private func withSmallFileSystem(_ body: (String) async throws -> Void) async throws {
        let path = NSTemporaryDirectory() + "/ondevice-full-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileSystem.makeDirectories(path)
        try #require(mount("tmpfs", path, "tmpfs", 0, "size=256k") == 0)
        defer {
            umount2(path, Int32(MNT_DETACH))
            rmdir(path)
        }
        try await body(path)
    }

    @Test(.enabled(if: canMount))
    func `statvfs sees the small file system and refuses the pull up front`() async throws {
        try await withSmallFileSystem { root in
            let fixture = try StoreFixture()
            var configuration = fixture.configuration()
            configuration.root = root
            let store = try ModelStore(configuration: configuration)
            try await store.register(fixture.model(files: [("w.bin", sampleBytes(400_000))]))
            var failure: StoreError?
            do { _ = try await store.pull("test-model") } catch { failure = error as? StoreError }
            guard case .insufficientStorage(let needed, let free)? = failure else {
                Issue.record("expected insufficientStorage, got \(String(describing: failure))")
                return
            }
            #expect(needed == 400_000 && free <= 256 * 1024)
            #expect(fixture.server.bytesSent(for: fixture.path(file: "w.bin")) == 0)
            #expect(!FileSystem.exists(root + "/org/repo/main/v"))
        }
    }

    @Test(.enabled(if: canMount))
    func `running out of space mid-download fails cleanly with nothing visible`() async throws {
        try await withSmallFileSystem { root in
            let fixture = try StoreFixture()
            // The probe lies (plenty of room), so the write itself hits ENOSPC.
            var configuration = fixture.configuration(freeBytes: 1 << 40)
            configuration.root = root
            let store = try ModelStore(configuration: configuration)
            try await store.register(fixture.model(files: [("w.bin", sampleBytes(400_000))]))
            var failure: StoreError?
            do { _ = try await store.pull("test-model") } catch { failure = error as? StoreError }
            guard case .insufficientStorage? = failure else {
                Issue.record("expected insufficientStorage, got \(String(describing: failure))")
                return
            }
            #expect(fixture.sleeper.recorded.isEmpty)  // a full disk is not retried
            #expect(!FileSystem.exists(root + "/org/repo/main/v"))
            #expect(try await store.resolve("test-model") == nil)
        }
    }
}
