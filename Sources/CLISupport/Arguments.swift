/// A small command-line parser: `--flag`, `--option value`, `--option=value`, positionals,
/// and `--` to end options. Commands declare what they accept, so a typo is an error, not a
/// silently ignored flag.
package struct Arguments {
    package private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []
    private var repeated: [String: [String]] = [:]

    /// Parses `args` given the option names that take a value and the boolean flags.
    package init(_ args: ArraySlice<String>, options valued: Set<String>, flags boolean: Set<String>) throws(CLIError) {
        var i = args.startIndex
        var onlyPositionals = false
        while i < args.endIndex {
            let a = args[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("--") || a == "-" {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = String(a.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if valued.contains(name) {
                if value == nil {
                    guard i < args.endIndex else { throw .missingValue(option: "--\(name)") }
                    value = args[i]
                    i += 1
                }
                options[name] = value
                repeated[name, default: []].append(value!)
            } else if boolean.contains(name) {
                guard value == nil else { throw .unexpectedValue(flag: "--\(name)") }
                flags.insert(name)
            } else {
                throw .unknownOption("--\(name)")
            }
        }
    }

    package func has(_ flag: String) -> Bool { flags.contains(flag) }
    package func string(_ name: String) -> String? { options[name] }
    package func all(_ name: String) -> [String] { repeated[name] ?? [] }

    package func int(_ name: String) throws(CLIError) -> Int? {
        guard let s = options[name] else { return nil }
        guard let v = Int(s) else { throw .invalidValue(option: "--\(name)", value: s, expected: "an integer") }
        return v
    }

    package func float(_ name: String) throws(CLIError) -> Float? {
        guard let s = options[name] else { return nil }
        guard let v = Float(s), v.isFinite else { throw .invalidValue(option: "--\(name)", value: s, expected: "a number") }
        return v
    }

    package func require(_ name: String) throws(CLIError) -> String {
        guard let v = options[name] else { throw .missingOption("--\(name)") }
        return v
    }
}

/// Usage errors of the command line (`ondevice` and `Benchmarks`).
package enum CLIError: Error, Equatable, CustomStringConvertible {
    case unknownCommand(String)
    case unknownOption(String)
    case missingOption(String)
    case missingValue(option: String)
    case unexpectedValue(flag: String)
    case invalidValue(option: String, value: String, expected: String)
    case missingArgument(String)
    case conflicting(String, String)
    case io(String)

    package var description: String {
        switch self {
        case .unknownCommand(let c): "unknown command '\(c)' (try 'ondevice help')"
        case .unknownOption(let o): "unknown option \(o)"
        case .missingOption(let o): "missing required option \(o)"
        case .missingValue(let o): "option \(o) needs a value"
        case .unexpectedValue(let f): "flag \(f) takes no value"
        case let .invalidValue(o, v, e): "option \(o): '\(v)' is not \(e)"
        case .missingArgument(let a): "missing argument: \(a)"
        case let .conflicting(a, b): "options \(a) and \(b) cannot be used together"
        case .io(let m): m
        }
    }
}
