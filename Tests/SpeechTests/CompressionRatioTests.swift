import Foundation
import Speech
import Testing

@Suite struct CompressionRatioTests {
    /// zlib.compress(text) sizes from CPython 3 (zlib 1.2/1.3, level 6), covering stored,
    /// fixed-code and dynamic-code blocks.
    static let fixtures: [(String, Int)] = [
        ("Welcome to the offline speech demo, the weather today is sunny and warm.", 72),
        ("a", 9), ("ab", 10), ("aaaa", 12),
        (String(repeating: "the ", count: 15) + "the", 15),
        (Array(repeating: "Thank you.", count: 9).joined(separator: " "), 22),
        (Array(repeating: "I'm going to go to the store.", count: 3).joined(separator: " "), 37),
        ("ünïcödé ☃ 日本語のテキスト and emoji 🎉🎉🎉", 68),
        (String(repeating: "0123456789", count: 40), 23),
        (String(repeating: "abcabcabdabcabcabdabcabcabd xyzxyzxyz ", count: 7), 28),
        (String((0..<3000).map { Character(Unicode.Scalar(UInt8(33 + ($0 * 7919) % 90))) }), 126),
        (String(repeating: "hello world ", count: 200), 40),
    ]

    @Test func `compressed sizes equal zlib's for stored, fixed and repetitive texts`() {
        for (text, size) in Self.fixtures {
            #expect(CompressionRatio.zlibCompressedCount(Array(text.utf8)) == size, "\(text.prefix(40))")
        }
    }

    @Test func `compressed sizes equal zlib's for dynamic-code blocks`() throws {
        // Texts built from the golden transcripts; sizes from CPython's zlib.compress.
        let records = try GoldenFiles.lines("asr/whisper-base.jsonl").filter { $0.int("beam_size") == 1 }
        let texts = records.map { $0.string("text") }
        let full = texts.joined(separator: " ")
        let clips = try GoldenFiles.lines("audio/clips.jsonl").map { $0.string("text") }.joined(separator: " ")
        let cases: [(String, Int)] = [(full, 532), (String(full.prefix(400)), 261), (String(full.prefix(700)), 420),
                                      (texts[4], 369), (clips, 546)]
        for (text, size) in cases {
            #expect(CompressionRatio.zlibCompressedCount(Array(text.utf8)) == size, "\(text.utf8.count) bytes")
        }
    }

    @Test func `repetition loops have a high ratio and the empty text zero`() {
        #expect(CompressionRatio.of(String(repeating: "I'm sorry. ", count: 30)) > 2.4)
        #expect(CompressionRatio.of("The quick brown fox jumps over the lazy dog.") < 1.2)
        #expect(CompressionRatio.of("") == 0)
    }
}
