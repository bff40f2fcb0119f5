import Testing
import Tools

@Suite struct CallOpeningTests {
    static func decide(_ pieces: [String]) -> (decision: CallOpening.Decision, passed: String) {
        var o = CallOpening()
        var passed = ""
        var last = CallOpening.Decision.undecided
        for p in pieces {
            last = o.feed(p)
            if case .answer(let t) = last { passed += t }
            if last == .call { return (.call, passed) }
        }
        return (last, passed + o.flush())
    }

    @Test func `a reply opening a bare or fenced JSON call is a call`() {
        #expect(Self.decide(["{\"", "name", "\": \"calc"]).decision == .call)
        #expect(Self.decide(["\n", "{ \"name\""]).decision == .call)
        #expect(Self.decide(["```", "json", "\n{"]).decision == .call)
    }

    @Test func `an ordinary answer passes through whole, including what was held`() {
        let r = Self.decide(["The", " answer is 42."])
        #expect(r.passed == "The answer is 42.")
        let code = Self.decide(["```", "python\nprint(1)"])
        #expect(code.passed == "```python\nprint(1)")
        let object = Self.decide(["{\"", "result\": 1}"])
        #expect(object.passed == "{\"result\": 1}")
        #expect(Self.decide(["  ", "{"]).passed == "  {")
    }
}
