extension PiperVoiceConfig {
    /// Model input ids for one sentence, laid out as Piper 1.8 `phonemes_to_ids` does: `^`, `_`,
    /// then each phoneme's ids followed by `_`, then `$`.
    ///
    /// A phoneme missing from `phoneme_id_map` is skipped, as Piper skips it (with a warning):
    /// the voice was never trained on it, so there is no id that would say it.
    package func phonemeIDs(for phonemes: [Unicode.Scalar]) -> [Int] {
        let pad = phonemeIDMap[Self.pad] ?? []
        var ids = (phonemeIDMap[Self.bos] ?? []) + pad
        ids.reserveCapacity(2 * phonemes.count + 3)
        for phoneme in phonemes {
            guard let mapped = phonemeIDMap[phoneme] else { continue }
            ids += mapped
            ids += pad
        }
        ids += phonemeIDMap[Self.eos] ?? []
        return ids
    }

    /// Phonemes of `phonemes` the voice has no id for (what `phonemeIDs` skips), in order.
    package func unknownPhonemes(in phonemes: [Unicode.Scalar]) -> [Unicode.Scalar] {
        phonemes.filter { phonemeIDMap[$0] == nil }
    }
}
