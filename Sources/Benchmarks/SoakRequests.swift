import Foundation
import Platform
import Server

/// The requests of the soak, built as raw HTTP over the loopback client.
struct SoakRequests: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case chatStream = "chat (streamed)"
        case completion = "completions"
        case embeddings = "embeddings"
        case transcription = "transcription"
        case malformed = "malformed (4xx expected)"
        case hangUp = "hang up mid-stream"

        /// The order each client walks through, starting at its own index: text most often,
        /// speech least (it is the heaviest per request).
        static let schedule: [Kind] = [.chatStream, .completion, .embeddings, .chatStream, .malformed, .hangUp,
                                       .completion, .embeddings, .chatStream, .transcription, .malformed, .completion]

        /// The name `--only` takes.
        var flag: String {
            switch self {
            case .chatStream: "chat"
            case .completion: "completions"
            case .embeddings: "embeddings"
            case .transcription: "transcription"
            case .malformed: "malformed"
            case .hangUp: "hangup"
            }
        }

        var loadsModel: Bool { self == .chatStream || self == .embeddings || self == .transcription }
    }

    static let textModel = "smollm2-135m-instruct-q4_1"
    static let embeddingModel = "all-minilm-l6-v2"
    static let speechModel = "whisper-tiny.en-ct2"
    let audio: [UInt8]

    /// The request's bytes; `client` varies the prompt so clients do not share one cached prefix.
    func make(_ kind: Kind, client: Int, turn: Int = 0) -> [UInt8] {
        switch kind {
        case .chatStream, .hangUp:
            return Self.post("/v1/chat/completions", #"{"model":"\#(Self.textModel)","stream":true,"max_tokens":24,"temperature":0.7,"seed":\#(turn),"#
                + #""messages":[{"role":"user","content":"Client \#(client): name a fruit and say why it is good."}]}"#)
        case .completion:
            return Self.post("/v1/completions", #"{"model":"\#(Self.textModel)","max_tokens":16,"temperature":0,"#
                + #""prompt":"Client \#(client) writes: The three primary colours are"}"#)
        case .embeddings:
            return Self.post("/v1/embeddings", #"{"model":"\#(Self.embeddingModel)","input":["client \#(client) turn \#(turn)","#
                + #""a short sentence about the sea","another about the mountains"]}"#)
        case .transcription:
            let boundary = "soak-\(client)-\(turn)"
            var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n\(Self.speechModel)\r\n".utf8)
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.wav\"\r\nContent-Type: audio/wav\r\n\r\n".utf8)
            body += audio
            body += Array("\r\n--\(boundary)--\r\n".utf8)
            return Self.raw("POST", "/v1/audio/transcriptions", body, contentType: "multipart/form-data; boundary=\(boundary)")
        case .malformed:
            switch turn % 4 {
            case 0: return Self.post("/v1/chat/completions", #"{"model":"\#(Self.textModel)","messages":[{"role":"user","content":"#)
            case 1: return Self.post("/v1/chat/completions", #"{"model":"no-such-model","messages":[{"role":"user","content":"hi"}]}"#)
            case 2: return Self.post("/v1/embeddings", #"{"model":"\#(Self.embeddingModel)","input":42}"#)
            default: return Self.post("/v1/chat/completions", #"{"model":"\#(Self.textModel)","max_tokens":-3,"messages":[]}"#)
            }
        }
    }

    /// Sends one request on a fresh connection; the response's status, 0 when the connection
    /// failed or timed out. A hang-up reads the response head, then closes mid-stream.
    func perform(_ kind: Kind, client: Int, turn: Int, port: UInt16) -> Int {
        do {
            let connection = try LoopbackClient(port: port, timeout: 120)
            guard connection.send(make(kind, client: client, turn: turn)) else { return 0 }
            if kind == .hangUp {
                let head = try connection.readHead()
                connection.hangUp()
                return head.status
            }
            return try connection.readResponse().status
        } catch {
            return 0
        }
    }

    static func post(_ path: String, _ json: String) -> [UInt8] {
        raw("POST", path, Array(json.utf8), contentType: "application/json")
    }

    static func raw(_ method: String, _ path: String, _ body: [UInt8], contentType: String) -> [UInt8] {
        Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

/// Outcomes per request kind, shared by the client threads.
final class SoakTally: Sendable {
    struct Kind: Sendable {
        var statuses: [Int: Int] = [:]
        var seconds: [Double] = []
    }
    private let kinds = Locked<[SoakRequests.Kind: Kind]>([:])

    func record(_ kind: SoakRequests.Kind, status: Int, seconds: Double) {
        kinds.withLock {
            $0[kind, default: Kind()].statuses[status, default: 0] += 1
            $0[kind, default: Kind()].seconds.append(seconds)
        }
    }

    func snapshot() -> [SoakRequests.Kind: Kind] { kinds.withLock { $0 } }
}
