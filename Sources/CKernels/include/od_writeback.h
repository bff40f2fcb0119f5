// Starting disk writeback of a file range without waiting, so a download's final fsync finds
// little left to write. Linux's sync_file_range needs _GNU_SOURCE, which Swift's Glibc module
// does not see; this file is that one call.
#ifndef ONDEVICE_WRITEBACK_H
#define ONDEVICE_WRITEBACK_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Asks the kernel to begin writing `length` bytes of `fd` from `offset` to disk and returns
/// at once (SYNC_FILE_RANGE_WRITE). Returns 0, or -1 with errno set; on systems without
/// sync_file_range it does nothing and returns 0. Durability still needs fsync.
int od_start_writeback(int fd, int64_t offset, int64_t length);

#ifdef __cplusplus
}
#endif
#endif
