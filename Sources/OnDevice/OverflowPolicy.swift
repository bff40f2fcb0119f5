/// What to do when an input does not fit in the model's context.
public enum OverflowPolicy: Sendable, Equatable {
    /// Fail with `OnDeviceError.inputTooLong` (the default: never a silent truncation).
    case refuse
    /// Keep the end of the input and drop its beginning, so the newest text is seen.
    case keepEnd
}
