/// What checking an installed model's files found (`ModelLibrary.validate`).
public struct ModelValidation: Sendable, Equatable {
    public var model: String
    /// What is wrong, in words (a missing file, a size or SHA-256 that differs); nil when whole.
    public var problem: String?
    /// True when no file changed since the last check, so its result was reused without hashing.
    public var reusedEarlierCheck: Bool
    /// Bytes hashed to reach the answer (0 when the earlier check was reused).
    public var bytesHashed: Int64

    public var isValid: Bool { problem == nil }
}
