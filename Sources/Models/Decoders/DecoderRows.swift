/// The rows of one forward pass and the sequences they belong to: runs of consecutive rows,
/// each run one sequence's new tokens at its next positions. One run is the ordinary case (a
/// prompt batch or one decoded token); several runs are a step of continuous batching, where
/// every matrix product reads each weight once for all the sequences and each row attends
/// over its own sequence's cache.
package struct DecoderRows {
    package struct Run {
        /// The sequence: its KV cache receives the run's keys and values, its `logits` the
        /// logits of the run's last row.
        package let state: DecoderState
        /// The run's first row in the pass.
        package let first: Int
        package let count: Int
        /// The sequence position of the run's first row (the cache's length before the pass).
        package let start: Int
    }

    package private(set) var runs: [Run] = []
    /// The sequence position of every row.
    package private(set) var positions: [Int] = []

    package init() {}

    /// One run: `count` tokens of `state`'s sequence.
    package init(_ state: DecoderState, count: Int) {
        append(state, count: count)
    }

    /// Adds the next `count` tokens of `state`'s sequence as a run after the current rows.
    /// A sequence appears in at most one run of a pass.
    package mutating func append(_ state: DecoderState, count: Int) {
        precondition(count > 0, "a run needs at least one row")
        precondition(!runs.contains { $0.state === state }, "a sequence appears once in a pass")
        let start = state.count
        runs.append(Run(state: state, first: positions.count, count: count, start: start))
        positions.append(contentsOf: start..<(start + count))
    }

    package var count: Int { positions.count }

    /// Moves every sequence's cache length past its run (the end of a pass).
    func advance() {
        for run in runs { run.state.count = run.start + run.count }
    }
}
