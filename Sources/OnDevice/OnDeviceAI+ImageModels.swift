import Foundation
import Photos
import Runtime

extension OnDeviceAI {
    /// Leases image model `modelId` as `Model`, runs `work` with it on a Dispatch thread (decoding
    /// and a network's forward pass would hold a cooperative-pool thread for a long time), and
    /// gives the lease back however `work` ends. A fault of the image at `path` is an invalid
    /// argument naming the file; any other an engine error.
    func withImageModel<Model: ResidentModel, T: Sendable>(_ type: Model.Type, _ modelId: String, path: String,
                                                           _ work: @escaping @Sendable (Model) throws -> T) async throws -> T {
        let lease = try await leaseModel(type, modelId)
        let model = lease.model
        do {
            let value = try await PhotoLibrary.offPool { try work(model) }
            await lease.release()
            return value
        } catch let error as PhotosError {
            await lease.release()
            var failure = OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
            failure.path = path
            throw failure
        } catch {
            await lease.release()
            throw OnDeviceError.engine("\(error)")
        }
    }
}
