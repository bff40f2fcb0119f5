/// Progress of a multi-step op (a long summary works through its chunks).
public struct OpProgress: Sendable, Equatable {
    public var completedSteps: Int
    public var totalSteps: Int
    public var stage: String
}
