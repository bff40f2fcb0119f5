import Foundation
import OnDevice
import Testing

/// Values an app may store (chat transcripts, figures) read back across versions: JSON written
/// before a field existed still decodes, and what is written now round-trips.
@Suite struct PublicCodableTests {
    @Test func `a message stored before calls and tool names were kept still reads`() throws {
        let old = try JSONDecoder().decode(Message.self, from: Data(#"{"role":"tool","content":"42"}"#.utf8))
        #expect(old == Message(role: .tool, content: "42"))
        let call = Message.assistant("", toolCalls: [.init(name: "calculate", arguments: #"{"expression":"6*7"}"#)])
        #expect(try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(call)) == call)
        let result = Message.tool("42", name: "calculate")
        #expect(try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(result)) == result)
    }

    @Test func `text metrics stored before the prompt and generation seconds existed still read`() throws {
        let json = #"{"timeToFirstToken":0.1,"promptTokens":12,"cachedPromptTokens":0,"completionTokens":5,"tokensPerSecond":50,"promptTokensPerSecond":300,"finishReason":"length","modelCalls":1}"#
        let old = try JSONDecoder().decode(TextMetrics.self, from: Data(json.utf8))
        #expect(old.promptTokens == 12 && old.completionTokens == 5 && old.finishReason == .length)
        #expect(old.promptSeconds == 0 && old.generationSeconds == 0)
        var now = old
        now.promptSeconds = 0.04
        now.generationSeconds = 0.1
        #expect(try JSONDecoder().decode(TextMetrics.self, from: JSONEncoder().encode(now)) == now)
    }
}
