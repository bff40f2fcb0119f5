import Foundation
import StructuredOutput
import TestSupport
import Testing

/// The schema corpus (Tests/IntegrationTests/Fixtures/schema-corpus) without a model: every
/// schema reads and compiles, and random documents of its grammar (which reach far more of it
/// than a model's answers do) satisfy our validator and Python's `jsonschema` alike.
@Suite struct SchemaCorpusGrammarTests {
    static let repository = JSONSchemaChecker.repository

    @Test func `random documents of every corpus schema satisfy both validators`() throws {
        let directory = Self.repository.appendingPathComponent("Tests/IntegrationTests/Fixtures/schema-corpus")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && $0 != "requests.json" }.sorted()
        try #require(names.count >= 50)
        var records: [String] = []
        for (i, name) in names.enumerated() {
            let document = try JSONValue(parsing: String(decoding: Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self))
            let schema = try JSONSchema(document: document)
            for text in try GrammarWalk.expectValidDocuments(schema, count: 8, seed: UInt64(i)) {
                records.append(JSONValue.object([.init("name", .string(name)), .init("schema", document), .init("output", .string(text))]).serialized)
            }
        }
        let (status, output) = try JSONSchemaChecker.check(records: records, label: "corpus-walks")
        #expect(status == 0, "\(output)")
    }
}
