// One process-wide pool of compute threads for the kernels' row splits: workers wait for a job
// by spinning briefly and then sleeping, so the many small splits of a decoded token (a few
// dozen microseconds each) start without a thread wake-up, and an idle process uses no CPU.
#ifndef ONDEVICE_POOL_H
#define ONDEVICE_POOL_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One part of a split job: `context` is the caller's, `part` in 0 ..< parts.
typedef void (*od_pool_task)(void *context, int64_t part);

/// Runs task(context, p) for every p in 0 ..< parts on the calling thread and up to
/// `threads` - 1 pool workers, each thread taking the next unclaimed part, and returns when all
/// parts have returned. Parts must be independent. When the pool is already running a job
/// (another caller's, or a task that splits again) the parts run on the calling thread, in order.
void od_pool_run(int64_t threads, int64_t parts, od_pool_task task, void *context);

/// What the pool has done since the process started.
typedef struct {
    int64_t split;    // jobs shared with workers
    int64_t stalls;   // of those, jobs whose caller waited long on a preempted worker
    int64_t alone;    // jobs run on the caller alone while backing off after a stall
} od_pool_counters;

od_pool_counters od_pool_stats(void);

/// Workers the pool has started so far (they are started on first use, up to threads - 1).
int64_t od_pool_workers(void);

#ifdef __cplusplus
}
#endif
#endif
