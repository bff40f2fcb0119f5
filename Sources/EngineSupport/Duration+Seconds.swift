extension Duration {
    /// The duration in seconds.
    package var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}
