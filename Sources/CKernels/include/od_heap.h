// The C library's heap, tuned for a process that serves for days. Swift's Glibc module does not
// see <malloc.h>; this file is that one call.
#ifndef ONDEVICE_HEAP_H
#define ONDEVICE_HEAP_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Makes every freed block of `threshold` bytes or more go back to the system at once, for the
/// life of the process. Glibc otherwise raises its mmap threshold each time such a block is
/// freed (up to 32 MiB), so later large buffers come from its per-thread heaps, which fragment
/// and keep their peak. Returns 1 when set, 0 where the C library has no such setting (the
/// others return large blocks on their own).
int od_return_large_freed_blocks(size_t threshold);

#ifdef __cplusplus
}
#endif
#endif
