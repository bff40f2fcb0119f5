import Foundation
import Testing
import TestSupport

/// `ondevice embed`, `index`, `search` end to end through the built executable.
@Suite(.serialized) struct RetrievalCLITests {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ args: [String]) throws -> Output {
        let ondevice = try #require(KilledWriterTests.executable, "build the ondevice product first (swift build)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ondevice)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func jsonLines(_ s: String) throws -> [[String: Any]] {
        try s.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
    }

    @Test func `embed --json prints the reference tokens and a matching unit vector per line`() throws {
        let directory = try Fixtures.miniLMDirectory()
        let records = try Fixtures.lines("minilm.jsonl").prefix(3)
        let dir = try TemporaryDirectory()
        let file = dir.file("in.txt")
        try records.map { $0.string("text") }.joined(separator: "\n").appending("\n").write(toFile: file, atomically: true, encoding: .utf8)
        let out = try Self.run(["embed", "--json", "--model", directory, "--file", file])
        #expect(out.status == 0, "\(out.stderr)")
        let lines = try Self.jsonLines(out.stdout)
        #expect(lines.count == records.count)
        for (line, record) in zip(lines, records) {
            #expect(line.ints("tokens") == record.ints("input_ids"))
            let v = line.floats("embedding")
            #expect(v.count == 384)
            #expect(cosine(v, record.floats("embedding")) >= 0.999)
        }
    }

    @Test func `embed applies nomic's task prefix`() throws {
        let path = try Fixtures.nomicPath()
        let record = try #require(try Fixtures.lines("nomic.jsonl").first { $0.string("id") == "p00q" })
        let sentence = String(record.string("text").dropFirst("search_query: ".count))
        let out = try Self.run(["embed", "--json", "--model", path, "--task", "query", sentence])
        #expect(out.status == 0, "\(out.stderr)")
        let line = try #require(try Self.jsonLines(out.stdout).first)
        #expect(line.ints("tokens") == record.ints("input_ids"))
        #expect(cosine(line.floats("embedding"), record.floats("embedding")) >= 0.999)
        let bad = try Self.run(["embed", "--model", path, "--task", "question", sentence])
        #expect(bad.status == 2)
    }

    @Test func `index add then search finds the file, semantically or lexically as told`() throws {
        let directory = try Fixtures.miniLMDirectory()
        let dir = try TemporaryDirectory()
        let notes = dir.file("notes")
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        try "Mount Everest is the highest mountain above sea level.".write(toFile: notes + "/everest.txt", atomically: true, encoding: .utf8)
        try "Sourdough bread needs a starter and a hot oven.".write(toFile: notes + "/bread.md", atomically: true, encoding: .utf8)
        let index = dir.file("index")
        let add = try Self.run(["index", "add", "--index", index, "--model", directory, notes])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("indexed 2 files"))
        let search = try Self.run(["search", "--index", index, "--model", directory, "--json", "--k", "1", "Which peak is the tallest?"])
        #expect(search.status == 0, "\(search.stderr)")
        let result = try #require(try Self.jsonLines(search.stdout).first)
        #expect(result["mode"] as? String == "semantic")
        let hits = try #require(result["results"] as? [[String: Any]])
        #expect(hits.count == 1)
        #expect((hits.first?["document"] as? String)?.hasSuffix("everest.txt") == true)
        let lexical = try Self.run(["search", "--index", index, "--lexical", "--json", "bread oven"])
        let lexicalResult = try #require(try Self.jsonLines(lexical.stdout).first)
        #expect(lexicalResult["mode"] as? String == "lexical")
        #expect(lexicalResult["method"] as? String == "bm25")
        // Another model on this index is refused rather than mixed.
        let other = try Self.run(["search", "--index", index, "--model", try Fixtures.nomicPath(), "tallest"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("re-embed"))
    }
}
