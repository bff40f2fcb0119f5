import Jinja
import Testing

/// Every fixture case renders exactly what jinja2 rendered, or fails with the same kind of
/// error (and, for `raise_exception`, the same message).
@Suite struct JinjaReferenceTests {
    @Test func `the fixture holds the real chat templates and the synthetic cases`() {
        let ids = JinjaReferenceCase.all.map(\.id)
        #expect(ids.count > 900)
        for prefix in ["smollm2/", "qwen2.5/", "gemma3/", "style/", "ws/", "scope/", "filter/", "syntax/", "random/"] {
            #expect(ids.contains { $0.hasPrefix(prefix) }, "no cases for \(prefix)")
        }
    }

    @Test(arguments: JinjaReferenceCase.all)
    func `renders what jinja2 renders`(_ reference: JinjaReferenceCase) {
        switch (reference.run(), reference.expected) {
        case (.success(let text), let expected?):
            #expect(text == expected)
        case (.success(let text), nil):
            Issue.record("rendered \(String(reflecting: text)) but jinja2 raised \(reference.errorKind ?? "?"): \(reference.errorMessage ?? "")")
        case (.failure(let error), nil):
            #expect(JinjaReferenceCase.kind(of: error) == reference.errorKind, "\(error) vs \(reference.errorMessage ?? "")")
            if case .raised(let message, _) = error { #expect(message == reference.errorMessage) }
        case (.failure(let error), let expected?):
            Issue.record("threw \(error) but jinja2 rendered \(String(reflecting: expected))")
        }
    }
}
