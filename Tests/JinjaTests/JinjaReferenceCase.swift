import Foundation
import Jinja
import Testing

/// One line of `Fixtures/jinja-references.jsonl`, written by `scripts/make-jinja-references.py`
/// from jinja2 3.1.6 configured as transformers configures it.
struct JinjaReferenceCase: Sendable, CustomTestStringConvertible {
    let id: String
    let template: String
    let context: JinjaContext
    let now: JinjaDateTime
    /// The rendered text, or nil when jinja2 raised.
    let expected: String?
    /// jinja2's error kind (see the script) and message when it raised.
    let errorKind: String?
    let errorMessage: String?

    var testDescription: String { id }

    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/jinja-references.jsonl").path

    /// Every case in the fixture (the fixture is parsed with the module's own JSON reader,
    /// which keeps key order as Python's `json` does).
    static let all: [JinjaReferenceCase] = {
        guard let text = try? String(contentsOfFile: fixturePath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard case .object(let o)? = try? JinjaValue(json: String(line)) else { return nil }
            return JinjaReferenceCase(o)
        }
    }()

    static func named(_ id: String) -> JinjaReferenceCase? { all.first { $0.id == id } }

    init?(_ o: JinjaObject) {
        guard case .string(let id)? = o["id"], case .string(let template)? = o["template"],
              case .object(let variables)? = o["context"], case .array(let trusted)? = o["trusted"],
              case .string(let now)? = o["now"] else { return nil }
        self.id = id
        self.template = template
        self.context = JinjaContext(variables, trusted: Set(trusted.compactMap { if case .string(let s) = $0 { s } else { nil } }))
        let n = now.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        guard n.count == 6 else { return nil }
        self.now = JinjaDateTime(year: n[0], month: n[1], day: n[2], hour: n[3], minute: n[4], second: n[5])
        if case .string(let expected)? = o["expected"] { self.expected = expected } else { self.expected = nil }
        if case .object(let error)? = o["error"], case .string(let kind)? = error["kind"], case .string(let message)? = error["message"] {
            errorKind = kind
            errorMessage = message
        } else {
            errorKind = nil
            errorMessage = nil
        }
    }

    /// The fixture's error kind for an interpreter error.
    static func kind(of error: JinjaError) -> String {
        switch error {
        case .syntax: return "syntax"
        case .unsupported: return "unsupported"
        case .raised: return "raised"
        case .undefined: return "undefined"
        case .unknownFilter: return "unknown_filter"
        case .unknownTest: return "unknown_test"
        case .notCallable, .typeMismatch: return "type"
        case .invalidValue: return "value"
        case .security: return "security"
        case .divisionByZero: return "division"
        case .integerOverflow: return "overflow"
        case .rangeTooLarge: return "range"
        case .limitExceeded: return "limit"
        case .invalidJSON: return "json"
        }
    }

    /// Parses and renders, returning the text or the error's fixture kind.
    func run() -> Result<String, JinjaError> {
        do throws(JinjaError) {
            let parsed = try JinjaTemplate(template)
            return .success(try parsed.render(context, now: now))
        } catch {
            return .failure(error)
        }
    }
}
