import Models

/// The VITS generator of a Piper voice is the synthesizer's network.
extension PiperVoiceModel: VoiceGenerating {
    package func generate(phonemeIDs: [Int], scales: SynthesisScales, seed: UInt64, threads: Int) throws(SpeechError) -> [Float] {
        let piper = PiperScales(noiseScale: scales.noiseScale, lengthScale: scales.lengthScale, noiseW: scales.noiseW)
        do { return try synthesize(phonemeIDs: phonemeIDs, scales: piper, seed: seed, threads: threads).samples } catch {
            throw .model(error)
        }
    }
}
