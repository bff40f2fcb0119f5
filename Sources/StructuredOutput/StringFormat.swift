/// The `format` values constrained decoding enforces, each with two regular languages: the
/// one generated (a subset, in one spelling: lowercase hexadecimal, uppercase `T` and `Z`, years
/// 1000–9999, http/https/ftp/ws/wss URIs with a host) and the one the validator accepts (the
/// format as its RFC defines it).
///
/// References: date, time, date-time: RFC 3339 §5.6 (full-date, full-time, date-time; leap
/// years in the regular expression, February 29 only in them); uuid: RFC 4122 §3; email: RFC
/// 5321 §4.1.2 (Mailbox, dot-atom or quoted local part, a domain or an address literal); uri:
/// RFC 3986 §3 (an absolute URI); ipv4: RFC 2673 §3.2 dotted-quad; hostname: RFC 1123 §2.1.
package enum StringFormat: String, Sendable, Hashable, CaseIterable {
    case date
    case time
    case dateTime = "date-time"
    case uuid
    case email
    case uri
    case ipv4
    case hostname

    /// The pattern of the strings generated for this format (whole-string).
    var generated: String {
        switch self {
        case .date: Self.date(year: "[1-9][0-9]{3}", leapYear: "[1-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[13579][26])00")
        case .time: Self.time(designators: "Z", fraction: "(?:\\.[0-9]{1,6})?")
        case .dateTime: Self.dateTime(separator: "T", generated: true)
        case .uuid: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        case .email: "[A-Za-z0-9_+-]+(?:\\.[A-Za-z0-9_+-]+)*@" + Self.domain(label: "[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
        case .uri:
            // The usual network schemes only: a free scheme let small models write a host name
            // into it ("example.com.au…://").
            "(?:https?|ftp|wss?)://" + "[a-z0-9]+(?:-[a-z0-9]+)*(?:\\.[a-z0-9]+(?:-[a-z0-9]+)*)*" + "(?::[0-9]{1,5})?"
                + "(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-F]{2})*)*"
                + "(?:\\?(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-F]{2})*)?"
                + "(?:#(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-F]{2})*)?"
        case .ipv4: Self.dottedQuad
        case .hostname: Self.hostnameLabels
        }
    }

    /// The pattern of every string the format allows (whole-string).
    var accepted: String {
        switch self {
        case .date: Self.date(year: "[0-9]{4}", leapYear: "[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00")
        case .time: Self.time(designators: "[Zz]", fraction: "(?:\\.[0-9]+)?")
        case .dateTime: Self.dateTime(separator: "[Tt]", generated: false)
        case .uuid: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
        case .email:
            // atext (RFC 5322 §3.2.3) in a dot-atom, or a quoted string; a domain or [literal].
            "(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*|\"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\x20-\\x7E])*\")"
                + "@(?:" + Self.domain(label: "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?") + "|" + Self.hostnameLabels + "|\\[[\\x21-\\x5A\\x5E-\\x7E]+\\])"
        case .uri:
            // scheme ":" then URI characters (RFC 3986 §2: unreserved, reserved, %HH), at most one "#".
            "[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9._~:/?@!$&'()*+,;=\\[\\]-]|%[0-9A-Fa-f]{2})*"
                + "(?:#(?:[A-Za-z0-9._~:/?@!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)?"
        case .ipv4: Self.dottedQuad
        case .hostname: Self.hostnameLabels
        }
    }

    private static func date(year: String, leapYear: String) -> String {
        "(?:(?:\(year))-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
            + "|(?:\(leapYear))-02-29)"
    }

    private static func time(designators: String, fraction: String) -> String {
        "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\(fraction)(?:\(designators)|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
    }

    private static func dateTime(separator: String, generated: Bool) -> String {
        generated ? StringFormat.date.generated + separator + StringFormat.time.generated
            : StringFormat.date.accepted + separator + StringFormat.time.accepted
    }

    /// Two or more dot-separated labels.
    private static func domain(label: String) -> String { "\(label)(?:\\.\(label))+" }

    private static let hostnameLabels = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
    private static let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
    private static let dottedQuad = "\(octet)\\.\(octet)\\.\(octet)\\.\(octet)"

    /// Parsed once: the generated and accepted languages as whole-string regular expressions.
    static let generatedNodes: [StringFormat: RegexNode] = Dictionary(uniqueKeysWithValues: allCases.map { ($0, whole($0.generated)) })
    static let acceptedNodes: [StringFormat: RegexNode] = Dictionary(uniqueKeysWithValues: allCases.map { ($0, whole($0.accepted)) })

    private static func whole(_ pattern: String) -> RegexNode {
        do { return try RegexParser.parse("^(?:" + pattern + ")$") } catch { preconditionFailure("format pattern \(pattern): \(error)") }
    }
}
