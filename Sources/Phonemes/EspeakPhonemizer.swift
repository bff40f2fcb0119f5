import CEspeakNG
import Platform

/// Text to IPA clauses with Debian's libespeak-ng.
///
/// espeak-ng keeps its state (loaded voice, dictionaries, the clause reader) in globals, so
/// the process has one phonemizer and every call holds its lock for the whole clause loop.
/// The library is initialized once, on first use, with its default data directory and
/// synchronous output (we never let it produce audio).
package final class EspeakPhonemizer: Sendable {
    /// The process-wide phonemizer.
    package static let shared = EspeakPhonemizer()

    private struct State {
        /// The sample rate `espeak_Initialize` returned, once it succeeded.
        var initialized = false
        /// The voice last set, so repeated calls skip reloading its dictionary.
        var voice: String?
    }

    private let state = Locked(State())

    private init() {}

    /// The clauses of `text` in `voice` (an espeak-ng voice name such as `en-us`).
    package func clauses(_ text: String, voice: String) throws(PhonemeError) -> [EspeakClause] {
        try state.withLock { (state: inout State) throws(PhonemeError) -> [EspeakClause] in
            if !state.initialized {
                // DONT_EXIT: without it espeak-ng calls exit() when its data is missing.
                let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
                guard rate > 0 else { throw PhonemeError.espeakUnavailable(code: rate) }
                state.initialized = true
            }
            if state.voice != voice {
                guard espeak_SetVoiceByName(voice) == EE_OK else {
                    state.voice = nil
                    throw PhonemeError.unknownEspeakVoice(voice)
                }
                state.voice = voice
            }
            return Self.readClauses(text)
        }
    }

    /// The clause loop; the caller holds the lock.
    ///
    /// `espeak_TextToPhonemes` phonemizes one clause per call and moves the text pointer past
    /// it — one UTF-8 character too far: it has already read the first character of the next
    /// clause to decide the clause ended (seen on 1.51: "warm, with" stops after the "w"). So
    /// a clause's text is the previous call's last character plus this call's bytes minus the
    /// last character; the final call (pointer set to NULL) owns the rest.
    ///
    /// A text whose last clause is one character ("Hi there. I") ends with that character
    /// read but not phonemized: the pointer is at the end, so the loop stops, and espeak keeps
    /// the character and puts it in front of the next text it is given (seen on 1.51: "Hello
    /// you." then read as "I hello you"). A space after the text gives espeak something to
    /// look ahead at, so the last character belongs to this text's last clause.
    private static func readClauses(_ text: String) -> [EspeakClause] {
        var bytes = Array(text.utf8)
        let textEnd = bytes.count
        bytes.append(0x20)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buffer -> [EspeakClause] in
            guard let base = buffer.baseAddress else { return [] }
            let end = buffer.count - 1
            var clauses: [EspeakClause] = []
            var cursor: UnsafeRawPointer? = UnsafeRawPointer(base)
            var carried = 0  // start offset of the clause being read
            while let start = cursor, start.assumingMemoryBound(to: UInt8.self) < base + end {
                var pointer: UnsafeRawPointer? = start
                let phonemes = withUnsafeMutablePointer(to: &pointer) { slot in
                    espeak_TextToPhonemes(slot, Int32(espeakCHARS_UTF8), Int32(espeakPHONEMES_IPA)).map { String(cString: $0) } ?? ""
                }
                let stop: Int
                if let next = pointer {
                    let consumed = next.assumingMemoryBound(to: UInt8.self) - base
                    stop = Self.previousCharacterStart(buffer, before: consumed, floor: carried)
                } else {
                    stop = end
                }
                let source = String(decoding: buffer[carried..<stop], as: UTF8.self)
                let terminator = ClauseTerminator(clause: Substring(source))
                clauses.append(EspeakClause(text: source.trimmingSpaces, phonemes: removingLanguageFlags(phonemes),
                                            terminator: terminator, endsSentence: terminator.endsSentence, sourceEnd: min(stop, textEnd)))
                carried = stop
                cursor = pointer
            }
            if var last = clauses.popLast() {
                last.endsSentence = true  // the end of the text ends the sentence
                clauses.append(last)
            }
            return clauses
        }
    }

    /// Start of the UTF-8 character that ends before `offset` (not below `floor`).
    private static func previousCharacterStart(_ buffer: UnsafeBufferPointer<UInt8>, before offset: Int, floor: Int) -> Int {
        var i = offset - 1
        while i > floor && buffer[i] & 0xC0 == 0x80 { i -= 1 }
        return max(floor, i)
    }

    /// Drops espeak's language-switch flags, `(en)`/`(fr)` around words it read in another
    /// language: Piper removes them too (they are not phonemes).
    static func removingLanguageFlags(_ phonemes: String) -> String {
        guard phonemes.contains("(") else { return phonemes }
        var out = ""
        var depth = false
        var pending = ""
        for ch in phonemes {
            if depth {
                if ch == ")" { depth = false; pending = "" } else { pending.append(ch) }
            } else if ch == "(" {
                depth = true
            } else {
                out.append(ch)
            }
        }
        if depth { out += "(" + pending }  // an unclosed "(" is kept, as the pattern `\([^)]+\)` would
        return out
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}
