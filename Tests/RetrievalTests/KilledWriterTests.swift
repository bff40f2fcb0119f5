import Foundation
import Retrieval
import Testing
import TestSupport

/// Real processes killed with SIGKILL while they append to an index: `ondevice index add` over
/// many files, killed as soon as the journal has grown past a mark that moves on every round
/// (so the kill lands just after a write, often during its sync or the next write). After every
/// kill the index must open, and every document in it must be whole. Torn final records are
/// covered byte by byte in CrashSafetyTests.
@Suite(.serialized) struct KilledWriterTests {
    /// The `ondevice` executable built beside the test bundle.
    static var executable: String? {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("ondevice").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func `an index written by a killed process opens with only whole documents`() async throws {
        let ondevice = try #require(Self.executable, "build the ondevice product first (swift build)")
        let files = try TemporaryDirectory()
        var contents: [String: String] = [:]
        for i in 0..<40 {
            let line = "Document \(i) line about \(TestEmbedders.words[i % TestEmbedders.words.count]) and more words here.\n"
            let text = String(repeating: line, count: 40_000 / line.utf8.count)
            let path = files.file(String(format: "doc%02d.txt", i))
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            contents[path] = text
        }
        let index = try TemporaryDirectory()
        var recovered = 0, partial = 0
        for round in 0..<10 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: ondevice)
            p.arguments = ["index", "add", "--lexical", "--index", index.path] + contents.keys.sorted()
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            let journal = index.file("index.journal")
            let start = Self.size(journal)
            try p.run()
            let mark = start + 40_000 * (1 + round % 4)
            while p.isRunning && Self.size(journal) < mark { usleep(500) }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let box = EventBox()
            let opened = try DocumentIndex(directory: index.path, embedder: nil, onEvent: { box.append($0) })
            if box.events.contains(where: { if case .recovered = $0 { true } else { false } }) { recovered += 1 }
            let ids = await opened.documentIds
            if !ids.isEmpty && ids.count < contents.count { partial += 1 }
            for id in ids {
                #expect(await opened.document(id)?.text == contents[id], "round \(round): \(id) is not whole")
            }
            #expect(Set(ids).isSubset(of: Set(contents.keys)))
            // The recovered index takes new writes.
            try await opened.add(id: "probe", text: "written after round \(round)")
            try await opened.remove(["probe"])
        }
        // Let a final run finish: everything is there.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ondevice)
        p.arguments = ["index", "add", "--lexical", "--index", index.path] + contents.keys.sorted()
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let final = try DocumentIndex(directory: index.path, embedder: nil)
        #expect(await final.documentIds == contents.keys.sorted())
        let found = try await final.search("Document 7 line", k: 1)
        #expect(found.method == .bm25)
        #expect(partial > 0, "some kill should land before the run finished")
        print("killed writers: \(partial) rounds left a partial index, \(recovered) left a torn record that was cut off")
    }
}
