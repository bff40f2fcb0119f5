import Dispatch
import Imaging
import Photos
import Synchronization

/// A second, real descriptor for exercising backend switches: the mean colour of a 4x4 grid of
/// cells (48 values), normalized. Named so it cannot pass for a model.
struct GridColourBackend: PhotoDescribing {
    let identity = DescriptorIdentity(name: "test-grid-colour", modelFingerprint: "none", preprocessing: "grid4-v1", dimension: 48)
    let sameSceneThreshold: Float = 0.99
    let minimumDecodeSide: Int? = 64

    func describe(_ image: RGBImage) -> PhotoDescriptor {
        let grid = image.areaDownscaled(width: min(4, image.width), height: min(4, image.height))
        var values = grid.pixels.map(Float.init)
        values += Array(repeating: 0, count: 48 - values.count)
        return PhotoDescriptor(identity: identity, values: PhotoDescriptor.normalized(values))
    }
}

/// Counts the descriptors it computes (to see cache hits).
final class CountingBackend: PhotoDescribing {
    let inner: any PhotoDescribing
    let calls = Atomic<Int>(0)
    init(_ inner: any PhotoDescribing) { self.inner = inner }
    var identity: DescriptorIdentity { inner.identity }
    var sameSceneThreshold: Float { inner.sameSceneThreshold }
    var minimumDecodeSide: Int? { inner.minimumDecodeSide }
    func describe(_ image: RGBImage) -> PhotoDescriptor {
        calls.add(1, ordering: .relaxed)
        return inner.describe(image)
    }
}

/// Holds each `describe` until the test releases it, so a result can be kept in flight while
/// the backend is swapped. Semaphores make the order explicit; nothing depends on timing.
final class GatedBackend: PhotoDescribing {
    let inner: any PhotoDescribing
    let entered = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    init(_ inner: any PhotoDescribing) { self.inner = inner }
    var identity: DescriptorIdentity { inner.identity }
    var sameSceneThreshold: Float { inner.sameSceneThreshold }
    var minimumDecodeSide: Int? { inner.minimumDecodeSide }
    func describe(_ image: RGBImage) -> PhotoDescriptor {
        entered.signal()
        released.wait()
        return inner.describe(image)
    }
}

/// A neural loader for tests: hands out `backend`, or fails with `reason`.
struct TestNeuralLoader: NeuralBackendLoading {
    let backend: (any PhotoDescribing)?
    var reason = "not installed"
    func load() async throws(PhotosError) -> any PhotoDescribing {
        guard let backend else { throw .backendUnavailable(name: "test-neural", reason: reason) }
        return backend
    }
}
