import Foundation
import Models
import Speech
import Testing

/// The pieces of word alignment on hand-made inputs: the median filter's mirrored ends, the
/// warping path, and the alignment heads read from a model's config.json.
struct WordAlignmentTests {
    @Test func `the median filter mirrors the row at its ends`() {
        // Width 3 at index 0 sees x[1], x[0], x[1].
        #expect(WordAlignment.medianFilter([5, 1, 9, 2], width: 3) == [1, 5, 2, 9])
        #expect(WordAlignment.medianFilter([3, 1], width: 7) == [3, 1])  // too short: unchanged
    }

    @Test func `the warping path follows the cheapest cells and jumps where each row starts`() {
        // Rows 0, 1, 2 are cheap in columns 0–1, 2–4 and 5 respectively.
        let n = 3, m = 6
        var cost = [Float](repeating: 1, count: n * m)
        for (row, columns) in [(0, 0...1), (1, 2...4), (2, 5...5)] { for c in columns { cost[row * m + c] = -1 } }
        let path = WordAlignment.dtw(cost, rows: n, columns: m)
        #expect(path.rows == [0, 0, 1, 1, 1, 2])
        #expect(path.columns == [0, 1, 2, 3, 4, 5])
        #expect(WordAlignment.rowStartTimes(rows: path.rows, columns: path.columns) == [0, 0.04, 0.1])
    }

    @Test func `alignment heads come from config json`() throws {
        let json = Data(#"{"alignment_heads": [[1, 0], [3, 4]], "lang_ids": []}"#.utf8)
        let config = try WhisperGenerationConfig(json: json)
        #expect(config.alignmentHeads == [WhisperAlignmentHead(layer: 1, head: 0), WhisperAlignmentHead(layer: 3, head: 4)])
        #expect(throws: ModelError.self) { try WhisperGenerationConfig(json: Data(#"{"alignment_heads": [[1]]}"#.utf8)) }
        #expect(try WhisperGenerationConfig(json: Data("{}".utf8)).alignmentHeads.isEmpty)
    }

    @Test func `tiny en reads its eight heads and base its own`() throws {
        let tiny = try #require(SpeechModels.tinyEnglish, "Whisper tiny.en not found: run scripts/setup.sh all")
        let heads = try SpeechModels.transcriber(tiny).model.alignmentHeads
        #expect(heads.count == 8 && heads.first == WhisperAlignmentHead(layer: 1, head: 0) && heads.last == WhisperAlignmentHead(layer: 3, head: 4))
        if let base = SpeechModels.base {
            let baseHeads = try SpeechModels.transcriber(base).model.alignmentHeads
            #expect(baseHeads.count == 8 && baseHeads.first == WhisperAlignmentHead(layer: 3, head: 1))
        }
    }
}
