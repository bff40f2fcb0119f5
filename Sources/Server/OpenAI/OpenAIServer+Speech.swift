import Foundation
import OnDevice
import StructuredOutput

/// `POST /v1/audio/speech`: text to speech with a Piper voice, through the public API
/// (`synthesisStream`, `SpeechEncoder`). The audio is streamed (chunked) sentence by sentence as
/// it is synthesized, in `response_format` (mp3 by default, as OpenAI's; opus, flac, wav, pcm), or
/// as server-sent events (`stream_format: "sse"`, base64 audio in `speech.audio.delta` events).
extension OpenAIServer {
    /// The most text one request speaks (OpenAI takes 4096 characters; a local voice can take more).
    static let maxSpeechCharacters = 20_000

    func speech(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let body = try jsonBody(request)
        guard let model = body["model"]?.string, !model.isEmpty else { throw ServerError.invalidRequest("'model' is required (a string)", param: "model") }
        guard let input = body["input"]?.string else { throw ServerError.invalidRequest("'input' is required (a string)", param: "input") }
        guard !input.allSatisfy(\.isWhitespace) else { throw ServerError.invalidRequest("'input' is empty", param: "input") }
        guard input.count <= Self.maxSpeechCharacters else {
            throw ServerError.invalidRequest("'input' has \(input.count) characters; at most \(Self.maxSpeechCharacters)", param: "input")
        }
        let voice = try TextRequest.optional(body, "voice", \.string, "a string")
        let formatName = try TextRequest.optional(body, "response_format", \.string, "a string") ?? "mp3"
        guard let format = AudioFormat(rawValue: formatName) else {
            let names = AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw ServerError.invalidRequest("response_format '\(formatName)' is not supported; use one of \(names)", param: "response_format")
        }
        let speed = try TextRequest.optional(body, "speed", \.number, "a number") ?? 1
        guard (0.25...4).contains(speed) else { throw ServerError.invalidRequest("speed must be between 0.25 and 4", param: "speed") }
        let streamFormat = try TextRequest.optional(body, "stream_format", \.string, "a string") ?? "audio"
        guard ["audio", "sse"].contains(streamFormat) else {
            throw ServerError.invalidRequest("stream_format must be audio or sse", param: "stream_format")
        }
        let seed = try TextRequest.optional(body, "seed", \.integer, "an integer")
        let voiceId = try host.speechVoice(model: model, voice: voice)

        let queue = host.queue(for: voiceId)
        guard try queue.enter(model: voiceId, isCancelled: { responder.isCancelled }) else { return }
        defer { queue.leave() }
        var options = SpeechOptions(speed: Float(speed))
        if let seed { options.seed = UInt64(bitPattern: Int64(seed)) }
        let events = BlockingIterator(host.ai.synthesisStream(input, voice: voiceId, options: options))
        defer { events.cancel() }
        let encoder = SpeechEncoder(format)
        let sse = streamFormat == "sse"
        func send(_ bytes: Data) {
            guard !bytes.isEmpty else { return }
            if sse {
                let event = JSONValue.make([("type", .string("speech.audio.delta")), ("audio", .string(bytes.base64EncodedString()))])
                responder.event(event.serialized)
            } else {
                responder.write(Array(bytes))
            }
        }
        do {
            while let event = try events.next(isCancelled: { responder.isCancelled }) {
                switch event {
                case .audio(let chunk):
                    let bytes = try encoder.encode(chunk)
                    // The response starts with the first audio, so a voice that fails to load
                    // still gets its status code.
                    if responder.status == nil {
                        responder.startStream(contentType: sse ? "text/event-stream" : format.mediaType)
                    }
                    send(bytes)
                case .finished(let metrics):
                    if responder.status == nil { responder.startStream(contentType: sse ? "text/event-stream" : format.mediaType) }
                    send(try encoder.finish())
                    if sse {
                        let usage = JSONValue.make([("input_characters", .int(input.count)),
                                                    ("audio_seconds", .number(metrics.audioSeconds))])
                        responder.event(JSONValue.make([("type", .string("speech.audio.done")), ("usage", usage)]).serialized)
                    }
                    responder.finishStream()
                    return
                }
            }
        } catch {
            if responder.status == nil { throw ServerError(speech: error, model: voiceId) }
        }
        // Cancelled, or failed after the audio started: the stream ends short.
        if responder.status != nil { responder.finishStream() }
    }
}

extension ServerError {
    /// A speech failure in the server's words: the client's mistakes are 400s, the rest 500s.
    init(speech error: any Error, model: String) {
        if let error = error as? OnDeviceError, error.code == .invalidArgument {
            self = .invalidRequest(error.message, param: "input")
        } else {
            self = .modelFailed(model: model, reason: "\(error)")
        }
    }
}
