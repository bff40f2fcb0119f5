import Audio
import EngineSupport
import Foundation
import Models

extension Transcriber {
    /// The decoded result of one window after temperature fallback.
    struct WindowResult {
        var search: WhisperSearch.Result
        var averageLogProb: Double
        var temperature: Float
        var compressionRatio: Double
    }

    /// faster-whisper's `generate_segments` loop over the windows of `mel`.
    func decodeWindows(_ mel: LogMelSpectrogram, samples: [Float], language: String, options: TranscriptionOptions,
                       isCancelled: () -> Bool, emit: (TranscriptionSegment) -> Void) throws(SpeechError) {
        // The extractor's extra padding frame is not content.
        let contentFrames = mel.frameCount - 1
        var seek = 0
        var allTokens: [Int32] = []
        var promptResetSince = 0
        var language = language
        var random = SplitMix64(seed: options.seed)
        if let prompt = options.initialPrompt {
            allTokens += tokenizer.encode(" " + prompt.trimmingCharacters(in: .whitespaces))
        }
        var id = 0
        var lastSpeech = 0.0
        while seek < contentFrames {
            if isCancelled() { throw .cancelled }
            let timeOffset = Double(seek) * Self.secondsPerFrame
            let segmentSize = min(WhisperFeatureExtractor.windowFrames, contentFrames - seek)
            let segmentDuration = Double(segmentSize) * Self.secondsPerFrame
            if let floor = options.silenceAmplitude, Self.isSilent(samples, frames: seek..<(seek + segmentSize), below: floor) {
                seek += segmentSize
                continue
            }
            encodeWindow(mel, start: seek, count: segmentSize, fittedPadding: options.fittedWindowPadding)
            if options.multilingual && tokenizer.isMultilingual {
                language = detectLanguageOfEncodedWindow()
            }
            let previous = Array(allTokens[promptResetSince...])
            let prompt = makePrompt(previous: previous, language: language, options: options)
            let t0 = clock.now
            let result = try decodeWithFallback(prompt: prompt, options: options, random: &random, isCancelled: isCancelled)
            metrics.decodeSeconds += Self.seconds(clock.now - t0)
            metrics.tokens += result.search.tokens.count

            if let threshold = options.noSpeechThreshold {
                var skip = result.search.noSpeechProb > threshold
                if let lp = options.logProbThreshold, result.averageLogProb > lp { skip = false }
                if skip {
                    seek += segmentSize
                    continue
                }
            }
            let previousSeek = seek
            var pieces = splitByTimestamps(result.search.tokens, timeOffset: timeOffset, segmentSize: segmentSize,
                                           segmentDuration: segmentDuration, seek: &seek)
            var words: [[TranscriptionWord]] = pieces.map { _ in [] }
            if options.wordTimestamps {
                if isCancelled() { throw .cancelled }
                let t1 = clock.now
                words = alignWords(&pieces, timeOffset: timeOffset, frames: segmentSize, language: language, options: options,
                                   lastSpeech: &lastSpeech)
                metrics.decodeSeconds += Self.seconds(clock.now - t1)
                // Unless the window's speech ended with it, resume after its last word.
                let tokens = result.search.tokens, n = tokens.count, begin = tokenizer.timestampBegin
                let singleTimestampEnding = n >= 2 && tokens[n - 2] < begin && tokens[n - 1] >= begin
                if !singleTimestampEnding, let end = words.last(where: { !$0.isEmpty })?.last?.end, end > timeOffset {
                    seek = Int((end / Self.secondsPerFrame).rounded())
                }
            }
            for (piece, pieceWords) in zip(pieces, words) {
                let text = tokenizer.decode(piece.tokens)
                if piece.start == piece.end || text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
                allTokens += piece.tokens
                id += 1
                emit(TranscriptionSegment(id: id, seek: previousSeek, start: piece.start, end: piece.end, text: text,
                                          tokens: piece.tokens, temperature: result.temperature,
                                          averageLogProb: result.averageLogProb, compressionRatio: result.compressionRatio,
                                          noSpeechProb: result.search.noSpeechProb, words: pieceWords))
            }
            if !options.conditionOnPreviousText || result.temperature > options.promptResetOnTemperature {
                promptResetSince = allTokens.count
            }
        }
    }

    /// Whether every sample of mel frames `frames` (160 samples each) is below `floor` in magnitude.
    static func isSilent(_ samples: [Float], frames: Range<Int>, below floor: Float) -> Bool {
        let hop = WhisperFeatureExtractor.hopLength
        let range = min(samples.count, frames.lowerBound * hop)..<min(samples.count, frames.upperBound * hop)
        return !samples[range].contains { abs($0) >= floor }
    }

    /// `<|startofprev|>` and up to 223 previous tokens, then the start sequence.
    func makePrompt(previous: [Int32], language: String, options: TranscriptionOptions) -> [Int32] {
        var prompt: [Int32] = []
        if !previous.isEmpty {
            prompt.append(tokenizer.startOfPrevious)
            prompt += previous.suffix(model.config.textContext / 2 - 1)
        }
        prompt += tokenizer.startSequence(language: language, translate: options.task == .translate)
        if options.withoutTimestamps { prompt.append(tokenizer.noTimestamps) }
        return prompt
    }

    /// faster-whisper's `generate_with_fallback`: decode at each temperature until the result
    /// is neither too repetitive nor too improbable (or is silence); if every temperature
    /// fails, keep the most probable result that was not too repetitive.
    func decodeWithFallback(prompt: [Int32], options: TranscriptionOptions, random: inout SplitMix64,
                            isCancelled: () -> Bool) throws(SpeechError) -> WindowResult {
        let search = makeSearch(options: options)
        var all: [WindowResult] = []
        var belowThreshold: [WindowResult] = []
        for temperature in options.temperatures {
            let mode: WhisperSearch.Mode = temperature > 0 ? .sample(temperature: temperature, count: options.bestOf)
                : options.beamSize == 1 ? .greedy : .beam(size: options.beamSize, patience: options.patience)
            let r = try search.run(prompt: prompt, mode: mode, lengthPenalty: options.lengthPenalty,
                                   maxNewTokens: options.maxNewTokens, random: &random, isCancelled: isCancelled)
            // Recover the average log-probability from the length-normalised score.
            let length = Double(r.tokens.count)
            let average = Double(r.score) * pow(length, Double(options.lengthPenalty)) / (length + 1)
            let text = tokenizer.decode(r.tokens).trimmingCharacters(in: .whitespacesAndNewlines)
            let result = WindowResult(search: r, averageLogProb: average, temperature: temperature,
                                      compressionRatio: CompressionRatio.of(text))
            all.append(result)
            var fallback = false
            if let threshold = options.compressionRatioThreshold {
                if result.compressionRatio > threshold { fallback = true } else { belowThreshold.append(result) }
            }
            if let lp = options.logProbThreshold, average < lp { fallback = true }
            if let ns = options.noSpeechThreshold, let lp = options.logProbThreshold, r.noSpeechProb > ns, average < lp {
                fallback = false  // silence: accept and let the caller skip it
            }
            if !fallback { return result }
        }
        let pool = belowThreshold.isEmpty ? all : belowThreshold
        var best = pool.max { $0.averageLogProb < $1.averageLogProb } ?? all[all.count - 1]
        best.temperature = options.temperatures[options.temperatures.count - 1]
        return best
    }

    func makeSearch(options: TranscriptionOptions) -> WhisperSearch {
        let t = tokenizer
        let suppress = options.suppressTokens ?? t.nonSpeechTokens()
        let specials = [t.transcribe, t.translate, t.startOfTranscript, t.startOfPrevious, t.startOfLM, t.noSpeech]
        let suppressed = Array(Set(suppress + specials)).filter { $0 >= 0 && Int($0) < t.vocabularySize }.sorted()
        let precision = Self.timePrecision
        let rules = WhisperLogitRules(
            vocabularySize: model.config.vocabularySize, suppress: suppressed,
            suppressAtBegin: options.suppressBlank ? model.generation.suppressIdsBegin : [],
            timestamps: !options.withoutTimestamps, endOfText: Int(t.endOfText), noTimestamps: Int(t.noTimestamps),
            timestampBegin: Int(t.timestampBegin),
            maxInitialTimestamp: Int(t.timestampBegin) + Int((options.maxInitialTimestamp / precision).rounded()))
        return WhisperSearch(model: model, state: state, rules: rules, endOfText: t.endOfText,
                             startOfTranscript: t.startOfTranscript, noSpeech: Int(t.noSpeech))
    }

    /// The language of the window already encoded in the state.
    private func detectLanguageOfEncodedWindow() -> String {
        state.resetDecoder()
        model.step([tokenizer.startOfTranscript], state: state)
        let row = state.logits(beam: 0)
        let ids = model.generation.languageIds
        guard let best = ids.max(by: { row[Int($0)] < row[Int($1)] }) else { return "en" }
        return tokenizer.languages[best] ?? "en"
    }
}
