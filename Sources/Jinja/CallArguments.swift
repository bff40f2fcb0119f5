/// Evaluated call arguments, and Python-style binding of them to a parameter list.
struct CallArguments {
    var positional: [Value] = []
    var keywords: [(name: String, value: Value)] = []

    init(positional: [Value] = [], keywords: [(name: String, value: Value)] = []) {
        self.positional = positional
        self.keywords = keywords
    }

    /// Binds to `parameters` like a Python function `function(p0, p1, …)`: positional first,
    /// then keywords by name. Unbound parameters are nil. Too many positionals, a parameter
    /// given twice, or an unknown keyword is Python's `TypeError`.
    func bind(_ function: String, _ parameters: [String], at loc: JinjaLocation) throws(JinjaError) -> [Value?] {
        if positional.count > parameters.count {
            throw .typeMismatch(operation: function,
                                message: "\(function)() takes at most \(parameters.count) arguments (\(positional.count) given)",
                                at: loc)
        }
        var bound: [Value?] = parameters.indices.map { $0 < positional.count ? positional[$0] : nil }
        for (name, value) in keywords {
            guard let i = parameters.firstIndex(of: name) else {
                throw .typeMismatch(operation: function, message: "\(function)() got an unexpected keyword argument '\(name)'", at: loc)
            }
            if bound[i] != nil {
                throw .typeMismatch(operation: function, message: "\(function)() got multiple values for argument '\(name)'", at: loc)
            }
            bound[i] = value
        }
        return bound
    }

    /// Binds and requires the first `required` parameters.
    func bind(_ function: String, _ parameters: [String], required: Int, at loc: JinjaLocation) throws(JinjaError) -> [Value?] {
        let bound = try bind(function, parameters, at: loc)
        for i in 0..<required where bound[i] == nil {
            throw .typeMismatch(operation: function,
                                message: "\(function)() missing required argument: '\(parameters[i])'", at: loc)
        }
        return bound
    }
}
