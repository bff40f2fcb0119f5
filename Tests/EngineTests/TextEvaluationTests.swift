import Testing
import TestSupport

/// The evaluation's scores: chrF against sacrebleu 2.x (`corpus_chrf`, its defaults: character
/// order 6, β 2, whitespace removed) on the same sentences, and the answer check of the tool part.
@Suite struct TextEvaluationTests {
    @Test func `chrF equals sacrebleu's corpus chrF`() {
        let spanish = TextEvaluation.chrF(
            hypotheses: ["El tren al aeropuerto sale cada veinte minutos.", "Olvide mi paraguas en el bus."],
            references: ["El tren al aeropuerto sale cada veinte minutos.", "Olvidé mi paraguas en el autobús."])
        #expect(abs(spanish - 83.84157460420406) < 1e-9, "\(spanish)")
        let french = TextEvaluation.chrF(hypotheses: ["Le musée ferme le lundi.", "Combien coute cette veste?"],
                                         references: ["Le musée est fermé le lundi.", "Combien coûte cette veste ?"])
        #expect(abs(french - 70.08406405537667) < 1e-9, "\(french)")
        #expect(TextEvaluation.chrF(hypotheses: ["abc"], references: ["xyz"]) == 0)
        #expect(TextEvaluation.chrF(hypotheses: ["Das Museum ist montags geschlossen."],
                                    references: ["Das Museum ist montags geschlossen."]) == 100)
    }

    @Test func `an answer counts when it states the number in prose, not when it is a call`() {
        #expect(TextEvaluation.statesNumber("1234 times 5678 is 7,006,652.", 7_006_652))
        #expect(TextEvaluation.statesNumber("The answer is 62.5", 62.5))
        #expect(!TextEvaluation.statesNumber("The answer is 62", 62.5))
        #expect(!TextEvaluation.statesNumber(#"{"name": "calculate", "arguments": {"expression": "1792"}}"#, 1792))
        #expect(!TextEvaluation.statesNumber("```json\n{\"result\": 1792}\n```", 1792))
    }

    @Test func `a structured item is right only with the expected value in its field`() {
        let item = TextEvaluation.structured.first { $0.field == "temperature_c" && $0.prompt.contains("Oslo") }!
        #expect(item.isRight(#"{"city":"Oslo","temperature_c":-5,"condition":"snowy"}"#))
        #expect(!item.isRight(#"{"city":"Oslo","temperature_c":5,"condition":"snowy"}"#))
        #expect(!item.isRight("not json"))
        let yes = TextEvaluation.structured.first { $0.field == "answer" }!
        #expect(yes.isRight(#"{"answer":true,"reason":"Rayleigh scattering"}"#))
        #expect(!yes.isRight(#"{"answer":false,"reason":"at night it is black"}"#))
    }
}
