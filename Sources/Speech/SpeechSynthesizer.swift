import EngineSupport
import Foundation
import Phonemes

/// Text to speech with a Piper voice: espeak-ng phonemes → ids (`PiperPhonemizer`) → the voice
/// network, one sentence at a time.
///
/// Immutable and shareable: the phonemizer serializes its espeak-ng calls, and the generator
/// keeps per-call scratch of its own.
package struct SpeechSynthesizer: Sendable {
    package let voice: any VoiceGenerating
    package let phonemizer: PiperPhonemizer

    package init(voice: any VoiceGenerating, config: PiperVoiceConfig) {
        self.voice = voice
        self.phonemizer = PiperPhonemizer(config: config)
    }

    package var config: PiperVoiceConfig { phonemizer.config }
    package var sampleRate: Int { voice.sampleRate }

    /// The scales `options` asks for, defaults from the voice config.
    package func scales(_ options: SynthesisOptions) -> SynthesisScales {
        SynthesisScales(noiseScale: options.noiseScale ?? config.noiseScale,
                        lengthScale: (options.lengthScale ?? config.lengthScale) / (options.speed > 0 ? options.speed : 1),
                        noiseW: options.noiseW ?? config.noiseW)
    }

    /// The sentences of `text`, phonemized.
    package func sentences(_ text: String) throws(SpeechError) -> [PhonemizedSentence] {
        do { return try phonemizer.sentences(text) } catch { throw .phonemes(error) }
    }

    /// Synthesizes `text` sentence by sentence; `onChunk` gets each sentence as soon as it is
    /// done. `isCancelled` is polled before each sentence (the generator runs a sentence whole).
    package func run(_ text: String, options: SynthesisOptions = SynthesisOptions(), isCancelled: () -> Bool = { false },
                     onChunk: (SpeechChunk) -> Void) throws(SpeechError) -> SynthesisMetrics {
        let clock = ContinuousClock()
        let start = clock.now
        var metrics = SynthesisMetrics()
        if isCancelled() { throw .cancelled }
        let sentences = try self.sentences(text)
        for (index, sentence) in sentences.enumerated() {
            if isCancelled() { throw .cancelled }
            let chunk = try self.chunk(sentence, index: index, options: options)
            if index == 0 { metrics.firstChunkSeconds = (clock.now - start).seconds }
            metrics.sentences += 1
            metrics.phonemeIDs += sentence.ids.count
            metrics.audioSeconds += chunk.audioSeconds
            onChunk(chunk)
        }
        metrics.computeSeconds = (clock.now - start).seconds
        return metrics
    }

    /// Speaks one phonemized sentence, the `index`-th of its text (which seeds its noise).
    package func chunk(_ sentence: PhonemizedSentence, index: Int, options: SynthesisOptions) throws(SpeechError) -> SpeechChunk {
        let clock = ContinuousClock()
        let start = clock.now
        let samples = try voice.generate(phonemeIDs: sentence.ids, scales: scales(options),
                                         seed: options.seed &+ UInt64(index), threads: options.threads)
        return SpeechChunk(index: index, text: sentence.text, samples: samples, sampleRate: voice.sampleRate,
                           computeSeconds: (clock.now - start).seconds)
    }

    /// The whole text as one clip: the sentences' PCM16 (each normalized as Piper does), joined.
    package func synthesize(_ text: String, options: SynthesisOptions = SynthesisOptions(),
                            isCancelled: () -> Bool = { false }) throws(SpeechError) -> SynthesizedSpeech {
        var pcm: [Int16] = []
        var raw: [Float] = []
        let metrics = try run(text, options: options, isCancelled: isCancelled) { chunk in
            pcm += chunk.pcm16
            raw += chunk.samples
        }
        return SynthesizedSpeech(pcm16: pcm, raw: raw, sampleRate: voice.sampleRate, metrics: metrics)
    }
}

/// A whole synthesized text.
package struct SynthesizedSpeech: Sendable, Equatable {
    /// What Piper would write to a WAV file.
    package var pcm16: [Int16]
    /// The generator's raw float output, sentences joined.
    package var raw: [Float]
    package var sampleRate: Int
    package var metrics: SynthesisMetrics

    package init(pcm16: [Int16], raw: [Float], sampleRate: Int, metrics: SynthesisMetrics) {
        self.pcm16 = pcm16
        self.raw = raw
        self.sampleRate = sampleRate
        self.metrics = metrics
    }

    /// The PCM16 audio as floats in [-1, 1] (exactly representable; see `PCM16.floats`).
    package var samples: [Float] { PCM16.floats(pcm16) }
}
