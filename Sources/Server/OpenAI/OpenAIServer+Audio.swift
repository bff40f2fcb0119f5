import Foundation
import OnDevice
import StructuredOutput

/// `POST /v1/audio/transcriptions`: a `multipart/form-data` upload with `file` (WAV, FLAC, Ogg
/// Vorbis or Opus, MP3: recognized from the bytes) and `model`; optional `language`,
/// `response_format` (json, text, srt, vtt, verbose_json), `timestamp_granularities[]` (segment,
/// word: verbose_json's top-level `words`, each `{word, start, end}`) and `temperature`.
extension OpenAIServer {
    func transcriptions(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        guard request.mediaType == "multipart/form-data" else {
            throw ServerError.unsupportedMediaType(request.mediaType ?? "none")
        }
        guard let boundary = request.header("content-type").flatMap(MultipartForm.boundary) else {
            throw ServerError.invalidRequest("multipart/form-data needs a boundary")
        }
        let form = try MultipartForm(body: request.body, boundary: boundary)
        guard let file = form.part("file") else { throw ServerError.invalidRequest("'file' is required", param: "file") }
        guard let modelId = form.field("model"), !modelId.isEmpty else { throw ServerError.invalidRequest("'model' is required", param: "model") }
        let format = form.field("response_format") ?? "json"
        guard ["json", "text", "srt", "vtt", "verbose_json"].contains(format) else {
            throw ServerError.invalidRequest("response_format must be json, text, srt, vtt or verbose_json", param: "response_format")
        }
        // openai-python sends the list as repeated `timestamp_granularities[]` fields.
        let granularities = form.parts.filter { $0.name == "timestamp_granularities[]" || $0.name == "timestamp_granularities" }
            .map { String(decoding: $0.body, as: UTF8.self) }
        for g in granularities where g != "segment" && g != "word" {
            throw ServerError.invalidRequest("'\(g)' is not a granularity; use segment or word", param: "timestamp_granularities")
        }
        let wantsWords = granularities.contains("word")
        let wantsSegments = granularities.isEmpty || granularities.contains("segment")
        if wantsWords && format != "verbose_json" {
            throw ServerError.invalidRequest("word timestamps need response_format verbose_json", param: "timestamp_granularities")
        }
        let audio: SpeechAudio
        do { audio = try SpeechAudio(decoding: file.body) } catch let error as OnDeviceError {
            throw ServerError.invalidRequest("'file' is \(error.message)", param: "file")
        }
        var options = TranscribeOptions()
        if let language = form.field("language"), !language.isEmpty { options.language = language }
        if let t = form.field("temperature").flatMap(Float.init), t > 0 { options.temperature = min(t, 1) }
        options.wordTimestamps = wantsWords
        options.model = try host.resolve(modelId, kind: .asr, endpoint: "/v1/audio/transcriptions").id
        let ai = host.ai, chosen = options
        let transcript: Transcript?
        do {
            transcript = try host.withTurn(on: modelId, responder: responder) {
                try await ai.transcribe(samples: audio.samples, sampleRate: audio.sampleRate, options: chosen)
            }
        } catch let error as OnDeviceError {
            throw ServerError.modelFailed(model: modelId, reason: error.message)
        }
        guard let transcription = transcript else { return }
        let text: String = transcription.text.trimmingCharacters(in: CharacterSet.whitespaces)
        switch format {
        case "text":
            responder.send(status: 200, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
        case "srt", "vtt":
            responder.send(status: 200, contentType: "\(format == "srt" ? "application/x-subrip" : "text/vtt"); charset=utf-8",
                           body: Array(transcription.subtitles(format == "vtt" ? .vtt : .srt).utf8))
        case "verbose_json":
            var fields: [(String, JSONValue)] = [("task", .string("transcribe")), ("language", .string(transcription.language)),
                                                 ("duration", .number(transcription.duration)), ("text", .string(text))]
            if wantsSegments { fields.append(("segments", .array(transcription.segments.map(Self.segmentObject)))) }
            if wantsWords { fields.append(("words", .array(transcription.segments.flatMap(\.words).map(Self.wordObject)))) }
            responder.send(json: JSONValue.make(fields).serialized)
        default:
            let seconds = Int(transcription.duration.rounded(FloatingPointRoundingRule.up))
            let usage = JSONValue.make([("type", .string("duration")), ("seconds", .int(seconds))])
            responder.send(json: JSONValue.make([("text", .string(text)), ("usage", usage)]).serialized)
        }
    }

    /// OpenAI's word object: the word without its leading space, start and end in seconds.
    static func wordObject(_ w: TranscriptWord) -> JSONValue {
        .make([("word", .string(w.word.trimmingCharacters(in: .whitespaces))), ("start", .number(w.start)), ("end", .number(w.end))])
    }

    static func segmentObject(_ s: TranscriptSegment) -> JSONValue {
        let tokens: [JSONValue] = s.tokens.map { JSONValue.int($0) }
        let fields: [(String, JSONValue)] = [
            ("id", .int(s.id)), ("seek", .int(s.seek)), ("start", .number(s.start)), ("end", .number(s.end)),
            ("text", .string(s.text)), ("tokens", .array(tokens)), ("temperature", .number(s.temperature)),
            ("avg_logprob", .number(s.averageLogProbability)), ("compression_ratio", .number(s.compressionRatio)),
            ("no_speech_prob", .number(s.noSpeechProbability)),
        ]
        return .make(fields)
    }
}
