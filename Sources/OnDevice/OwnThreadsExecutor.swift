import EngineSupport

/// The task executor on threads of its own, for the doors: the server's connection threads start
/// their runtime work there so they are answered while an app's work holds the cooperative pool.
package typealias OwnThreadsExecutor = EngineSupport.OwnThreadsExecutor
