import Foundation

/// The text-op evaluation every instruct model is measured on: tool calls, structured output,
/// translation and summaries, each with its own score. `Benchmarks eval` runs it per model and
/// the README's table comes from it; the tests hold the default models to parts of it.
///
/// The items are ordinary requests, written once and never adjusted to what one model does.
package enum TextEvaluation {
    // MARK: Tools

    /// Ten arithmetic questions and their answers, for the `calculate` tool.
    package static let arithmetic: [(question: String, answer: Double)] = [
        ("What is 1234 times 5678?", 7_006_652), ("Calculate 15% of 360.", 54), ("What is (48 + 52) * 7?", 700),
        ("What is the square root of 2025?", 45), ("How much is 1000 divided by 16?", 62.5), ("What is 3 to the power of 7?", 2187),
        ("Subtract 789 from 2024.", 1235), ("I bought 3 books at 12.50 each. How much did I spend?", 37.5),
        ("What is 81 times 19?", 1539), ("Add 256, 512 and 1024.", 1792),
    ]

    /// Whether a tool's result (as text) is the expected number.
    package static func isNumber(_ text: String, _ expected: Double) -> Bool {
        guard let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return false }
        return abs(value - expected) < 1e-6 * max(1, abs(expected))
    }

    /// Numbers as written, with thousands separators (a fixed pattern, so it always compiles).
    private static let numberPattern = try! NSRegularExpression(pattern: #"-?\d[\d,]*(?:\.\d+)?"#)

    /// Whether an answer states `expected` as a number, in prose: "7,006,652", "7006652" and
    /// "62.5" count; a reply that is itself a JSON object (a call written as text) does not.
    package static func statesNumber(_ answer: String, _ expected: Double) -> Bool {
        let trimmed = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("```") || trimmed.contains("<tool_call>") { return false }
        let pattern = numberPattern
        let range = NSRange(trimmed.startIndex..., in: trimmed)
        for match in pattern.matches(in: trimmed, range: range) {
            guard let r = Range(match.range, in: trimmed) else { continue }
            if isNumber(trimmed[r].replacingOccurrences(of: ",", with: ""), expected) { return true }
        }
        return false
    }

    // MARK: Structured output

    /// A request whose document has one right answer in one field.
    package struct StructuredItem: Sendable {
        package let schema: String
        package let prompt: String
        /// The member to read (nil: the document itself) and the value it must hold.
        package let field: String?
        package let expected: Expected

        package enum Expected: Sendable {
            case text(String)
            case number(Double)
            case bool(Bool)
        }

        /// Whether `json` parses and holds the expected value (strings compared without case).
        package func isRight(_ json: String) -> Bool {
            guard let document = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) else { return false }
            var value: Any? = document
            if let field { value = (document as? [String: Any])?[field] }
            switch expected {
            case .text(let s): return (value as? String)?.lowercased() == s.lowercased()
            case .number(let n): return (value as? NSNumber).map { abs($0.doubleValue - n) < 1e-9 } ?? false
            // The schema's grammar already made the member a boolean.
            case .bool(let b): return (value as? Bool) == b
            }
        }
    }

    private static let color = #"{"enum":["red","green","blue","yellow","black","white"]}"#
    private static let integer = #"{"type":"integer"}"#
    private static let yesNo = #"{"type":"object","properties":{"answer":{"type":"boolean"},"reason":{"type":"string","maxLength":80}},"required":["answer","reason"]}"#
    private static let sentiment = #"{"type":"object","properties":{"sentiment":{"enum":["positive","negative","neutral"]},"confidence":{"type":"number"}},"required":["sentiment","confidence"]}"#
    private static let category = #"{"type":"object","properties":{"category":{"enum":["sports","politics","technology","health","entertainment"]},"keywords":{"type":"array","items":{"type":"string","maxLength":20},"minItems":1,"maxItems":3}},"required":["category","keywords"]}"#
    private static let weather = #"{"type":"object","properties":{"city":{"type":"string","maxLength":30},"temperature_c":{"type":"number"},"condition":{"enum":["sunny","cloudy","rainy","snowy","windy"]}},"required":["city","temperature_c","condition"]}"#
    private static let sum = #"{"type":"object","properties":{"expression":{"type":"string","maxLength":30},"result":{"type":"number"}},"required":["expression","result"]}"#

    /// 38 requests with one right answer each: enums, integers, booleans, labels and numbers read
    /// from the text.
    package static let structured: [StructuredItem] = {
        func item(_ schema: String, _ prompt: String, _ field: String?, _ expected: StructuredItem.Expected) -> StructuredItem {
            StructuredItem(schema: schema, prompt: prompt, field: field, expected: expected)
        }
        return [
            item(color, "What color is grass?", nil, .text("green")),
            item(color, "What color is the sky on a clear day?", nil, .text("blue")),
            item(color, "What color is snow?", nil, .text("white")),
            item(color, "What color is a ripe banana?", nil, .text("yellow")),
            item(color, "What color is coal?", nil, .text("black")),
            item(integer, "How many legs does a spider have?", nil, .number(8)),
            item(integer, "What is 2 plus 3?", nil, .number(5)),
            item(integer, "How many days are in a week?", nil, .number(7)),
            item(integer, "How many months are in a year?", nil, .number(12)),
            item(integer, "What is 10 times 10?", nil, .number(100)),
            item(yesNo, "Is the sky blue?", "answer", .bool(true)),
            item(yesNo, "Can fish fly like birds?", "answer", .bool(false)),
            item(yesNo, "Is 7 a prime number?", "answer", .bool(true)),
            item(yesNo, "Do cats bark?", "answer", .bool(false)),
            item(yesNo, "Is the Sun a star?", "answer", .bool(true)),
            item(sentiment, "I love this phone, it is amazing!", "sentiment", .text("positive")),
            item(sentiment, "The food was cold and the waiter was rude.", "sentiment", .text("negative")),
            item(sentiment, "Best day ever!", "sentiment", .text("positive")),
            item(sentiment, "This is the worst hotel I have ever stayed in.", "sentiment", .text("negative")),
            item(category, "The team won the championship last night.", "category", .text("sports")),
            item(category, "A new smartphone was released with a faster chip.", "category", .text("technology")),
            item(category, "The president signed a new law.", "category", .text("politics")),
            item(category, "Doctors recommend eating more vegetables.", "category", .text("health")),
            item(category, "The movie broke box office records.", "category", .text("entertainment")),
            item(weather, "It is 25 degrees and sunny in Lisbon.", "condition", .text("sunny")),
            item(weather, "Snow in Oslo today, minus 5.", "condition", .text("snowy")),
            item(weather, "London: rain, 12 degrees.", "condition", .text("rainy")),
            item(weather, "A windy day in Chicago at 8 degrees.", "condition", .text("windy")),
            item(weather, "It is 25 degrees and sunny in Lisbon.", "temperature_c", .number(25)),
            item(weather, "Snow in Oslo today, minus 5.", "temperature_c", .number(-5)),
            item(weather, "London: rain, 12 degrees.", "temperature_c", .number(12)),
            item(weather, "A windy day in Chicago at 8 degrees.", "city", .text("Chicago")),
            item(weather, "London: rain, 12 degrees.", "city", .text("London")),
            item(sum, "What is 2 + 2?", "result", .number(4)),
            item(sum, "Multiply 6 by 7.", "result", .number(42)),
            item(sum, "What is half of 10?", "result", .number(5)),
            item(sum, "Add 100 and 23.", "result", .number(123)),
            item(sum, "What is 9 minus 4?", "result", .number(5)),
        ]
    }()

    // MARK: Translation

    /// Twelve everyday English sentences with a reference translation into Spanish, French and
    /// German each (written for this set).
    package static let translations: [(english: String, references: [String: String])] = [
        ("The train to the airport leaves every twenty minutes.",
         ["Spanish": "El tren al aeropuerto sale cada veinte minutos.",
          "French": "Le train pour l'aéroport part toutes les vingt minutes.",
          "German": "Der Zug zum Flughafen fährt alle zwanzig Minuten."]),
        ("Please close the window before you leave the room.",
         ["Spanish": "Por favor, cierra la ventana antes de salir de la habitación.",
          "French": "Veuillez fermer la fenêtre avant de quitter la pièce.",
          "German": "Bitte schließ das Fenster, bevor du den Raum verlässt."]),
        ("My sister works as a nurse in a large hospital.",
         ["Spanish": "Mi hermana trabaja como enfermera en un hospital grande.",
          "French": "Ma sœur travaille comme infirmière dans un grand hôpital.",
          "German": "Meine Schwester arbeitet als Krankenschwester in einem großen Krankenhaus."]),
        ("We bought fresh bread and cheese at the market this morning.",
         ["Spanish": "Esta mañana compramos pan fresco y queso en el mercado.",
          "French": "Ce matin, nous avons acheté du pain frais et du fromage au marché.",
          "German": "Heute Morgen haben wir auf dem Markt frisches Brot und Käse gekauft."]),
        ("The museum is closed on Mondays.",
         ["Spanish": "El museo está cerrado los lunes.",
          "French": "Le musée est fermé le lundi.",
          "German": "Das Museum ist montags geschlossen."]),
        ("How much does this jacket cost?",
         ["Spanish": "¿Cuánto cuesta esta chaqueta?",
          "French": "Combien coûte cette veste ?",
          "German": "Wie viel kostet diese Jacke?"]),
        ("It rained all day, so we stayed at home and read books.",
         ["Spanish": "Llovió todo el día, así que nos quedamos en casa y leímos libros.",
          "French": "Il a plu toute la journée, alors nous sommes restés à la maison et avons lu des livres.",
          "German": "Es hat den ganzen Tag geregnet, also sind wir zu Hause geblieben und haben Bücher gelesen."]),
        ("Can you help me find the nearest pharmacy?",
         ["Spanish": "¿Puedes ayudarme a encontrar la farmacia más cercana?",
          "French": "Pouvez-vous m'aider à trouver la pharmacie la plus proche ?",
          "German": "Können Sie mir helfen, die nächste Apotheke zu finden?"]),
        ("The children are playing football in the park.",
         ["Spanish": "Los niños están jugando al fútbol en el parque.",
          "French": "Les enfants jouent au football dans le parc.",
          "German": "Die Kinder spielen Fußball im Park."]),
        ("I forgot my umbrella on the bus.",
         ["Spanish": "Olvidé mi paraguas en el autobús.",
          "French": "J'ai oublié mon parapluie dans le bus.",
          "German": "Ich habe meinen Regenschirm im Bus vergessen."]),
        ("Our flight was delayed by two hours because of the snow.",
         ["Spanish": "Nuestro vuelo se retrasó dos horas por la nieve.",
          "French": "Notre vol a été retardé de deux heures à cause de la neige.",
          "German": "Unser Flug hatte wegen des Schnees zwei Stunden Verspätung."]),
        ("She drinks a cup of green tea every evening.",
         ["Spanish": "Ella bebe una taza de té verde cada noche.",
          "French": "Elle boit une tasse de thé vert chaque soir.",
          "German": "Sie trinkt jeden Abend eine Tasse grünen Tee."]),
    ]

    package static let translationLanguages = ["Spanish", "French", "German"]

    /// chrF (character n-gram F-score, n = 1…6, β = 2, whitespace removed, statistics summed over
    /// the corpus), 0-100: the score WMT uses beside BLEU, and kinder to short sentences.
    package static func chrF(hypotheses: [String], references: [String], order: Int = 6, beta: Double = 2) -> Double {
        precondition(hypotheses.count == references.count)
        var matched = [Double](repeating: 0, count: order), inHyp = matched, inRef = matched
        for (h, r) in zip(hypotheses, references) {
            let hc = Array(h.filter { !$0.isWhitespace }), rc = Array(r.filter { !$0.isWhitespace })
            for n in 1...order {
                let hg = grams(hc, n), rg = grams(rc, n)
                inHyp[n - 1] += Double(hg.values.reduce(0, +))
                inRef[n - 1] += Double(rg.values.reduce(0, +))
                for (g, c) in hg { matched[n - 1] += Double(min(c, rg[g] ?? 0)) }
            }
        }
        // Average precision and recall over the orders that have n-grams, then the F-score.
        var p = 0.0, r = 0.0, orders = 0.0
        for n in 0..<order where inHyp[n] > 0 && inRef[n] > 0 {
            p += matched[n] / inHyp[n]
            r += matched[n] / inRef[n]
            orders += 1
        }
        guard orders > 0 else { return 0 }
        p /= orders
        r /= orders
        guard p + r > 0 else { return 0 }
        let b2 = beta * beta
        return 100 * (1 + b2) * p * r / (b2 * p + r)
    }

    private static func grams(_ chars: [Character], _ n: Int) -> [String: Int] {
        var counts: [String: Int] = [:]
        guard chars.count >= n else { return counts }
        for i in 0...(chars.count - n) { counts[String(chars[i..<(i + n)]), default: 0] += 1 }
        return counts
    }

    // MARK: Summaries

    /// A short news-style passage and the facts a summary should keep, each as the words any of
    /// which shows it was kept.
    package struct SummaryItem: Sendable {
        package let text: String
        package let facts: [[String]]

        /// How many of the facts `summary` keeps (words matched without case).
        package func factsKept(_ summary: String) -> Int {
            let s = summary.lowercased()
            return facts.filter { words in words.contains { s.contains($0) } }.count
        }
    }

    package static let summaries: [SummaryItem] = [
        SummaryItem(text: "The city council voted on Tuesday to close Elm Street to cars every Sunday from June to September. Cafés on the street will be allowed to put tables on the road, and buses will take a detour along Oak Avenue. The mayor said the trial will be reviewed in October, after the council has counted visitors and heard from shop owners.",
                    facts: [["elm"], ["sunday"], ["car", "traffic", "vehicle"]]),
        SummaryItem(text: "Maria Lopez, a nurse from Valencia, finished the Berlin marathon in 3 hours and 12 minutes on Sunday, her first race over 42 kilometres. She trained for eight months, running before her night shifts at the hospital. She raised 4,000 euros for a children's cancer charity, which she plans to hand over next week.",
                    facts: [["maria", "lopez"], ["marathon"], ["charity", "4,000", "4000", "raised"]]),
        SummaryItem(text: "A software update released on Monday fixes a flaw that let apps read the phone's location without permission. The company says no customer data is known to have been misused, but it urges everyone to install version 14.2 as soon as possible. Phones that are more than six years old will not receive the update.",
                    facts: [["update"], ["location"], ["14.2", "install"]]),
        SummaryItem(text: "The library on Park Road will close for three months from March while its roof is repaired. During the closure, a mobile library van will visit the market square every Wednesday and Saturday, and books already borrowed can be returned at the town hall. The renovated building will also have a new children's reading room.",
                    facts: [["library"], ["roof", "repair", "renovat"], ["van", "mobile"]]),
        SummaryItem(text: "Scientists at a university in Norway have found that a common garden plant, yarrow, can survive temperatures as low as minus 40 degrees by producing a natural antifreeze in its leaves. The team hopes the discovery could help farmers breed crops that withstand harsher winters. The study was published in the journal Plant Biology this week.",
                    facts: [["yarrow", "plant"], ["antifreeze", "cold", "minus 40", "-40", "freez"], ["crop", "farm"]]),
        SummaryItem(text: "Heavy rain caused the river to flood parts of the old town overnight. About 200 residents were moved to a school gym, and no one was injured. The fire service expects the water to fall by Thursday, and the main bridge will stay closed until engineers have checked it.",
                    facts: [["flood", "rain"], ["200", "resident", "evacuat"], ["bridge"]]),
    ]

    /// Words in a text (for the summaries' length against their passage's).
    package static func wordCount(_ text: String) -> Int {
        text.split { $0.isWhitespace || $0.isNewline }.count
    }
}
