/// What `set`, `for` and `with` assign to.
indirect enum AssignTarget: Sendable {
    /// A variable.
    case name(String)
    /// `a, b` unpacking.
    case tuple([AssignTarget])
    /// `ns.attr` on a namespace (only in `set`).
    case namespaceAttribute(namespace: String, attribute: String)
}
