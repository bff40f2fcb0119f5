/// One parser or decoder under the fuzzer: a name, what it reads, and a body that feeds it
/// arbitrary bytes.
///
/// A body must return normally for every input. Typed errors are the expected answer to bad
/// input and are swallowed; a trap, an out-of-bounds read (AddressSanitizer in the fuzz build)
/// or a hang is a finding. Bodies hold to the parsers' own claims too: every tensor a format
/// says it has is read at its first and last byte, and a JSON document a schema's grammar
/// accepts must validate against that schema.
package struct FuzzTarget: Sendable {
    package let name: String
    package let summary: String
    /// libFuzzer's `-max_len` for this target: the largest input worth mutating.
    package let maxLength: Int
    package let body: @Sendable (UnsafeRawBufferPointer) -> Void

    package init(_ name: String, _ summary: String, maxLength: Int = 4096,
                 body: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.name = name
        self.summary = summary
        self.maxLength = maxLength
        self.body = body
    }

    /// Every target, in the order `scripts/fuzz.sh` runs them.
    package static let all: [FuzzTarget] = formatTargets + mediaTargets + textTargets + serverTargets + indexTargets

    package static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// Runs the body over `bytes` (the replay path of the tests and of `ondevice-fuzz replay`).
    package func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { body($0) }
    }
}

/// Reading a tensor's claimed bytes: its first and last, so a view that runs past its storage
/// faults under AddressSanitizer instead of passing unnoticed.
@inline(never)
func touch(_ data: UnsafeRawPointer, _ count: Int) -> UInt8 {
    guard count > 0 else { return 0 }
    return data.load(as: UInt8.self) &+ data.load(fromByteOffset: count - 1, as: UInt8.self)
}

/// Splits an input at its first zero byte: (head, rest). The rest is empty when there is none.
func splitAtZero(_ bytes: UnsafeRawBufferPointer) -> ([UInt8], [UInt8]) {
    guard let zero = bytes.firstIndex(of: 0) else { return (Array(bytes), []) }
    return (Array(bytes[..<zero]), Array(bytes[(zero + 1)...]))
}

/// Keeps the optimiser from dropping work whose result a body does not otherwise use.
@inline(never)
func consume<T>(_ value: T) { withExtendedLifetime(value) {} }
