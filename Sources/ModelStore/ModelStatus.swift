import Foundation

/// Where a catalog model stands on this machine.
package enum InstallState: String, Sendable, Equatable, Codable {
    /// Whole model in place.
    case installed
    /// Not in place, but a download left bytes in staging (the next pull resumes them).
    case partial
    case absent
}

/// One row of `ondevice models list` / `du`.
package struct ModelStatus: Sendable, Equatable, Codable {
    package var entry: CatalogEntry
    package var state: InstallState
    /// Bytes on disk: the installed files, or the staged partial bytes.
    package var bytesOnDisk: Int64
    package var lastUsed: Date?
    /// `<root>/<repo>/<revision>/<variant>`, whether or not it exists yet.
    package var directory: String
}

/// Disk use of the store and room left on its file system.
package struct StorageReport: Sendable, Equatable, Codable {
    /// Models with any bytes on disk (installed or partial).
    package var models: [ModelStatus]
    package var totalBytes: Int64
    /// From the free-space probe (statvfs); nil when the root does not exist yet.
    package var freeBytes: Int64?
}

/// Counters that make the validation cache measurable.
package struct StoreStatistics: Sendable, Equatable {
    /// Validations that hashed files.
    package var validationsHashed = 0
    /// Validations answered from an unchanged snapshot.
    package var validationsReused = 0
    package var bytesHashed: Int64 = 0
}
