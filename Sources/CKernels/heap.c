// See include/od_heap.h.
#include "include/od_heap.h"
#include <stdlib.h> // defines __GLIBC__ where glibc is the C library
#if defined(__GLIBC__) && !defined(ONDEVICE_PORTABLE_CHECK)
#include <malloc.h>
#endif

int od_return_large_freed_blocks(size_t threshold) {
// ONDEVICE_PORTABLE_CHECK takes the fallback on Linux too, so scripts/check-portable.sh builds it.
#if defined(__GLIBC__) && !defined(ONDEVICE_PORTABLE_CHECK)
    return mallopt(M_MMAP_THRESHOLD, (int)threshold);
#else
    (void)threshold;
    return 0;
#endif
}
