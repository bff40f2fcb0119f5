import Foundation

// `withUnsafeBytes` rethrows as `any Error`; this keeps `StoreError` typed across the closure.
extension Data {
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(StoreError) -> R) throws(StoreError) -> R {
        let result: Result<R, StoreError> = withUnsafeBytes { raw in Result { () throws(StoreError) in try body(raw) } }
        return try result.get()
    }
}
