import ModelStore
import Speech

/// A Piper voice held by the residency cache: the synthesizer (voice network and phonemizer),
/// shared by every op; each synthesis allocates its scratch per call.
///
/// `residentBytes`: what the loaded network reports holding (its weights) plus the config's
/// phoneme table, which is negligible beside it.
package final class ResidentPiperVoice: ResidentModel {
    package static var kind: ModelKind { .tts }
    package let synthesizer: SpeechSynthesizer

    package init(synthesizer: SpeechSynthesizer) { self.synthesizer = synthesizer }

    package var residentBytes: Int { synthesizer.voice.residentBytes }
}
