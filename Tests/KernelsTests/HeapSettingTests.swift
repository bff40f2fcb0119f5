import CKernels
import Testing

/// `ondevice serve` holds glibc's large-block threshold so its memory stays flat (see
/// `APIServer.init`). The setting hides behind a C-library test in heap.c; on Linux with glibc it
/// must take effect, or the server would fragment its heap again without a sign.
@Test func `the server's heap setting takes effect under glibc`() {
    #if os(Linux)
    #expect(od_return_large_freed_blocks(128 << 10) == 1)
    #else
    #expect(od_return_large_freed_blocks(128 << 10) == 0)
    #endif
}
