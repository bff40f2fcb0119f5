import Testing
import Tokenizers

/// The MiniLM tokenizer on hard inputs — accents, CJK, Hangul, emoji, control and format
/// characters, ligatures, full-width forms, special-token texts, an over-long word — against
/// ids from Hugging Face's `BertTokenizerFast` (tokenizers, through transformers'
/// `AutoTokenizer` on the same `tokenizer.json`), recorded here as fixtures.
struct WordPieceReferenceTests {
    static let cases: [(String, [Int32])] = [
        ("H\u{E9}llo, W\u{F6}rld! \u{C7}a va? na\u{EF}ve fa\u{E7}ade",
         [101, 7592, 1010, 2088, 999, 6187, 12436, 1029, 15743, 8508, 102]),
        ("\u{6771}\u{4EAC}\u{306F}\u{65E5}\u{672C}\u{306E}\u{9996}\u{90FD}\u{3067}\u{3059}\u{3002}",
         [101, 1879, 1755, 1672, 1864, 1876, 1671, 100, 1961, 1665, 30184, 1636, 102]),
        ("emoji \u{1F600} test \u{1F680}!",
         [101, 7861, 29147, 2072, 100, 3231, 100, 999, 102]),
        ("tab\u{9}here\u{A}newline\u{D}\u{A}end",
         [101, 21628, 2182, 2047, 4179, 2203, 102]),
        ("zero\u{200B}width\u{A0}nbsp",
         [101, 5717, 9148, 11927, 2232, 1050, 5910, 2361, 102]),
        ("\u{130}stanbul \u{FB01}ne Stra\u{DF}e \u{1C5}",
         [101, 9960, 1984, 2638, 2358, 27807, 100, 102]),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa short",
         [101, 100, 2460, 102]),
        ("[CLS] [SEP] [MASK] text [UNK]",
         [101, 101, 102, 103, 3793, 100, 102]),
        ("e-mail: someone@example.com, price $12.50 (approx.)",
         [101, 1041, 1011, 5653, 1024, 2619, 1030, 2742, 1012, 4012, 1010, 3976, 1002, 2260, 1012, 2753, 1006, 22480, 1012, 1007, 102]),
        ("\u{395}\u{3BB}\u{3BB}\u{3B7}\u{3BD}\u{3B9}\u{3BA}\u{3AC} \u{3BA}\u{3B5}\u{3AF}\u{3BC}\u{3B5}\u{3BD}\u{3B1} \u{3BA}\u{3B1}\u{3B9} \u{440}\u{443}\u{441}\u{441}\u{43A}\u{438}\u{439} \u{442}\u{435}\u{43A}\u{441}\u{442}",
         [101, 1159, 29727, 29727, 24824, 16177, 18199, 29726, 14608, 1164, 29723, 18199, 29728, 29723, 16177, 14608, 1164, 14608, 18199, 1195, 29748, 29747, 29747, 23925, 15414, 1197, 15290, 23925, 29747, 22919, 102]),
        ("\u{D55C}\u{AD6D}\u{C5B4} \u{D14D}\u{C2A4}\u{D2B8}",
         [101, 1469, 30006, 30021, 29991, 30014, 30020, 29999, 30008, 1467, 30009, 30020, 29997, 30017, 30003, 30017, 102]),
        ("\u{FF8A}\u{FF9D}\u{FF76}\u{FF78} half-width",
         [101, 100, 2431, 1011, 9381, 102]),
        ("1,234.56 3x+y=z^2 ~tilde `tick` |pipe|",
         [101, 1015, 1010, 22018, 1012, 5179, 1017, 2595, 1009, 1061, 1027, 1062, 1034, 1016, 1066, 18681, 3207, 1036, 16356, 1036, 1064, 8667, 1064, 102]),
        ("don't won't it's",
         [101, 2123, 1005, 1056, 2180, 1005, 1056, 2009, 1005, 1055, 102]),
        ("   leading and trailing   ",
         [101, 2877, 1998, 12542, 102]),
        ("\u{0}control\u{7}chars\u{1F}",
         [101, 2491, 7507, 2869, 102]),
        ("combining e\u{301} and a\u{300}",
         [101, 11566, 1041, 1998, 1037, 102]),
        ("\u{FB00} ligature and \u{FF21}\u{FF22}\u{FF23} fullwidth",
         [101, 100, 8018, 11244, 1998, 100, 2440, 9148, 11927, 2232, 102]),
    ]

    @Test func `ids equal Hugging Face's on hard inputs`() throws {
        let tokenizer = try Fixtures.miniLM.get().tokenizer
        for (text, expected) in Self.cases {
            #expect(tokenizer.encode(text) == expected, "\(text.debugDescription)")
        }
    }
}
