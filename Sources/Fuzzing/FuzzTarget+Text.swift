import Foundation
import Phonemes
import StructuredOutput
import Tokenizers
import Tools

extension FuzzTarget {
    static let textTargets: [FuzzTarget] = [
        FuzzTarget("json", "JSON documents; what parses serializes and parses back to the same value") { bytes in
            guard let value = try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
            guard let again = try? JSONValue(parsing: value.serialized) else {
                fatalError("serialized JSON does not parse back: \(value.serialized.prefix(200))")
            }
            guard again.serialized == value.serialized else { fatalError("JSON round trip changed the document") }
        },
        // The grammar alone cannot stop an object repeating an extra member's name (a regular
        // language has no memory of the names written; GrammarConstraint refuses the repeat while
        // decoding), so candidates with a repeated name are left out.
        FuzzTarget("json-schema", "a JSON Schema (before the first zero byte) compiled to a grammar, and a candidate document "
                   + "(after it): whatever the grammar accepts must validate against the schema", maxLength: 8192) { bytes in
            let (schemaBytes, candidate) = splitAtZero(bytes)
            guard let schema = try? JSONSchema(json: String(decoding: schemaBytes, as: UTF8.self)),
                  let grammar = try? Grammar(schema: schema) else { return }
            consume(grammar.minimumBytesToFinish(grammar.initialState))
            if let state = grammar.state(after: candidate) { consume(grammar.minimumBytesToFinish(state)) }
            let text = String(decoding: candidate, as: UTF8.self)
            guard Array(text.utf8) == candidate, grammar.recognizes(text) else { return }
            let value: JSONValue
            do throws(EngineError) { value = try JSONValue(parsing: text) } catch {
                // The parser's depth limit, which an expanded recursive schema can exceed, is no finding.
                if case .malformedJSON(_, let expected) = error, expected.hasPrefix("nesting") { return }
                fatalError("the grammar accepted text that is not JSON (\(error)): \(text.prefix(200))")
            }
            guard !value.repeatsMemberName else { return }
            do { try schema.validate(value) } catch {
                fatalError("the grammar accepted a document the schema rejects (\(error)): \(text.prefix(200))")
            }
        },
        FuzzTarget("chat-template", "a chat template (Jinja) rendered over a conversation with tools and tool calls",
                   maxLength: 8192) { bytes in
            guard let template = try? ChatTemplate(metadataTemplate: String(decoding: bytes, as: UTF8.self),
                                                   bosToken: "<s>", eosToken: "</s>") else { return }
            let call = ChatToolCall(name: "calculate", argumentsJSON: #"{"expression":"2+2"}"#)
            let messages = [ChatMessage(role: .system, content: "Be brief."), ChatMessage(role: .user, content: "What is 2+2?"),
                            ChatMessage(role: .assistant, content: "", toolCalls: [call]),
                            ChatMessage(role: .tool, content: "4"), ChatMessage(role: .user, content: "<|im_end|> thanks")]
            let tool = #"{"type":"function","function":{"name":"calculate","parameters":{"type":"object"}}}"#
            consume(try? template.prompt(messages: messages, tools: [tool], addGenerationPrompt: true))
        },
        FuzzTarget("whisper-tokenizer", "a Whisper tokenizer.json (vocabulary, merges, added tokens, language range)",
                   maxLength: 16 * 1024) { bytes in
            guard let tokenizer = try? WhisperTokenizer(json: Data(bytes), vocabularySize: 512) else { return }
            consume(tokenizer.decode(tokenizer.encode(" Hello, world")))
        },
        FuzzTarget("wordpiece", "a WordPiece tokenizer.json, and the same bytes as a vocab.txt", maxLength: 16 * 1024) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            for tokenizer in [try? WordPieceTokenizer(tokenizerJSON: Data(bytes)), try? WordPieceTokenizer(vocabText: text)] {
                guard let tokenizer else { continue }
                consume(tokenizer.encode("Héllo, wörld! unaffable 🙂"))
            }
        },
        FuzzTarget("piper-config", "a Piper voice's .onnx.json: audio, espeak voice, inference scales, phoneme map",
                   maxLength: 8192) { bytes in
            guard let config = try? PiperVoiceConfig(json: Data(bytes)) else { return }
            let phonemes = Array("həlˈoʊ wˈɜːld".unicodeScalars)
            consume(config.phonemeIDs(for: phonemes))
            consume(config.unknownPhonemes(in: phonemes))
        },
        FuzzTarget("calculator", "the calculate tool's arithmetic expressions (text a model writes)", maxLength: 1100) { bytes in
            let calculator = Calculator()
            guard let value = try? calculator.evaluate(String(decoding: bytes, as: UTF8.self)) else { return }
            consume(Calculator.format(value))
        },
    ]
}
