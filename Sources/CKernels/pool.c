// The compute pool behind od_pool_run (see od_pool.h).
//
// A job is published as a generation number and a claim word, (generation << 32) | parts left.
// Every thread, the caller included, claims parts by compare-and-swap on that word, so a part
// runs exactly once and a worker that wakes late for an old job fails its claim instead of
// running it. The job's task, context and part count are read only after a successful claim:
// until that part finishes, the caller cannot move on to another job, so they cannot change.
//
// Waiting: a worker spins (with the CPU's pause hint) for up to WORKER_SPIN_NS after the last
// job it took part in, then sleeps on its own condition variable; a caller wakes only the
// sleepers its job needs. Spinning through the gaps of a decode step (a norm, a rope) is what
// makes two threads faster than one on a token that takes a few milliseconds. Past
// YIELD_AFTER_NS without work, a spinning thread calls sched_yield at each check: on a machine
// whose cores other work also wants, a worker spinning on the core its own caller needs would
// otherwise hold it for a whole time slice (measured: SmolLM2 two-thread decode beside a busy
// core, 55-62 tokens/s without the yield, 91-113 with it, one thread 98-111). A caller whose
// parts are done spins up to CALLER_SPIN_NS for the workers' parts, then sleeps until the last
// one ends: when the machine has more runnable threads than cores, a worker holding a part may
// be preempted, and a caller spinning on its core would keep it from running.
//
// Backing off: on a machine busy with other work, a preempted worker makes the caller wait a
// scheduler time slice for one part, and two threads end up slower than one. A job whose caller
// waited longer than its own share took (plus STALL_SLACK_NS) is a stall; after one, jobs run on
// the caller alone for a while (from MIN_BACKOFF_NS, doubling on each stall in a row up to
// MAX_BACKOFF_NS, reset by a job without one), then the pool is tried again.
#include "od_pool.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

enum { MAX_WORKERS = 63 };
static const int64_t WORKER_SPIN_NS = 500000;  // longer than the gaps inside a decoded token
static const int64_t CALLER_SPIN_NS = 100000;  // several parts' worth; past it, a worker was preempted
static const int64_t YIELD_AFTER_NS = 5000;    // idle this long, a spinning thread offers its core
static const int64_t STALL_SLACK_NS = 200000;
static const int64_t MIN_BACKOFF_NS = 50000000, MAX_BACKOFF_NS = 1000000000;

typedef struct {
    _Alignas(64) pthread_mutex_t mutex;  // one cache line (or two) per worker
    pthread_cond_t wake;
    atomic_int sleeping;
} worker_slot;

static worker_slot slots[MAX_WORKERS];

static struct {
    pthread_mutex_t mutex;          // guards starting workers and the caller's sleep
    pthread_cond_t done;            // the caller sleeps here for the last part
    atomic_int callerWaiting;
    atomic_int busy;                // a caller's job is in flight
    _Atomic uint64_t generation;    // bumped once per job
    _Atomic uint64_t claim;         // (generation << 32) | parts not yet claimed
    _Atomic int64_t finished;       // parts of the current job that have returned
    _Atomic int64_t allowed;        // workers 0 ..< allowed take part in the current job
    int workers;                    // started, under `mutex`
    int64_t aloneUntil;             // backing off: jobs before this time run on the caller
    int64_t backoff;                // the next back-off's length
    _Atomic int64_t split, stalls, alone;
    od_pool_task task;              // the current job, published by `claim`
    void *context;
    int64_t parts;
} pool = {.mutex = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/// Claims and runs parts of the job tagged `tag` until none are left.
static void run_parts(uint32_t tag) {
    uint64_t word = atomic_load_explicit(&pool.claim, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(word >> 32) != tag || (uint32_t)word == 0) return;
        if (!atomic_compare_exchange_weak_explicit(&pool.claim, &word, word - 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        int64_t parts = pool.parts;
        pool.task(pool.context, parts - (int64_t)(uint32_t)word);
        // After the last increment the caller may start its next job: nothing of this one is
        // read past it. A wake-up that lands on the next job's wait is a spurious one.
        if (atomic_fetch_add_explicit(&pool.finished, 1, memory_order_seq_cst) + 1 == parts &&
            atomic_load_explicit(&pool.callerWaiting, memory_order_seq_cst)) {
            pthread_mutex_lock(&pool.mutex);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.mutex);
        }
        word = atomic_load_explicit(&pool.claim, memory_order_acquire);
    }
}

/// Takes part in job `g` if worker `index` is in it; returns whether it was.
static bool join(int64_t index, uint64_t g) {
    if (index >= atomic_load_explicit(&pool.allowed, memory_order_relaxed)) return false;
    run_parts((uint32_t)g);
    return true;
}

static void *worker_main(void *argument) {
    int64_t index = (int64_t)(intptr_t)argument;
    worker_slot *slot = &slots[index];
    uint64_t seen = atomic_load_explicit(&pool.generation, memory_order_acquire);
    for (;;) {
        // Spin until WORKER_SPIN_NS pass without a job for this worker.
        int64_t last = now_ns(), deadline = last + WORKER_SPIN_NS;
        for (uint32_t spins = 1;; spins++) {
            uint64_t g = atomic_load_explicit(&pool.generation, memory_order_acquire);
            if (g != seen) {
                seen = g;
                if (join(index, g)) { last = now_ns(); deadline = last + WORKER_SPIN_NS; }
                continue;
            }
            relax();
            if ((spins & 63) == 0) {
                int64_t t = now_ns();
                if (t > deadline) break;
                if (t - last > YIELD_AFTER_NS) sched_yield();
            }
        }
        // Sleep until a job this worker is in.
        pthread_mutex_lock(&slot->mutex);
        atomic_store_explicit(&slot->sleeping, 1, memory_order_seq_cst);
        for (;;) {
            uint64_t g = atomic_load_explicit(&pool.generation, memory_order_seq_cst);
            if (g != seen) {
                seen = g;
                if (index < atomic_load_explicit(&pool.allowed, memory_order_relaxed)) break;
            }
            pthread_cond_wait(&slot->wake, &slot->mutex);
        }
        atomic_store_explicit(&slot->sleeping, 0, memory_order_relaxed);
        pthread_mutex_unlock(&slot->mutex);
        run_parts((uint32_t)seen);
    }
    return NULL;
}

/// Starts workers until there are `count` (or thread creation fails: fewer workers, same results).
static void ensure_workers(int64_t count) {
    if (count > MAX_WORKERS) count = MAX_WORKERS;
    pthread_mutex_lock(&pool.mutex);
    while (pool.workers < count) {
        worker_slot *slot = &slots[pool.workers];
        pthread_mutex_init(&slot->mutex, NULL);
        pthread_cond_init(&slot->wake, NULL);
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attributes, 8 << 20);
        pthread_t thread;
        int failed = pthread_create(&thread, &attributes, worker_main, (void *)(intptr_t)pool.workers);
        pthread_attr_destroy(&attributes);
        if (failed) break;
        pool.workers++;
    }
    pthread_mutex_unlock(&pool.mutex);
}

od_pool_counters od_pool_stats(void) {
    return (od_pool_counters){atomic_load_explicit(&pool.split, memory_order_relaxed),
                              atomic_load_explicit(&pool.stalls, memory_order_relaxed),
                              atomic_load_explicit(&pool.alone, memory_order_relaxed)};
}

int64_t od_pool_workers(void) {
    pthread_mutex_lock(&pool.mutex);
    int64_t n = pool.workers;
    pthread_mutex_unlock(&pool.mutex);
    return n;
}

void od_pool_run(int64_t threads, int64_t parts, od_pool_task task, void *context) {
    if (parts <= 0) return;
    if (threads <= 1 || parts == 1 || parts > UINT32_MAX ||
        atomic_exchange_explicit(&pool.busy, 1, memory_order_acquire)) {
        for (int64_t p = 0; p < parts; p++) task(context, p);
        return;
    }
    int64_t start = now_ns();
    if (start < pool.aloneUntil) {
        atomic_fetch_add_explicit(&pool.alone, 1, memory_order_relaxed);
        for (int64_t p = 0; p < parts; p++) task(context, p);
        atomic_store_explicit(&pool.busy, 0, memory_order_release);
        return;
    }
    ensure_workers(threads - 1);
    atomic_fetch_add_explicit(&pool.split, 1, memory_order_relaxed);
    int64_t helpers = threads - 1 < pool.workers ? threads - 1 : pool.workers;
    pool.task = task;
    pool.context = context;
    pool.parts = parts;
    atomic_store_explicit(&pool.finished, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.allowed, helpers, memory_order_relaxed);
    uint64_t g = atomic_load_explicit(&pool.generation, memory_order_relaxed) + 1;
    uint32_t tag = (uint32_t)g;
    atomic_store_explicit(&pool.claim, ((uint64_t)tag << 32) | (uint64_t)parts, memory_order_release);
    atomic_store_explicit(&pool.generation, g, memory_order_seq_cst);
    for (int64_t i = 0; i < helpers; i++) {
        if (!atomic_load_explicit(&slots[i].sleeping, memory_order_seq_cst)) continue;
        pthread_mutex_lock(&slots[i].mutex);
        pthread_cond_signal(&slots[i].wake);
        pthread_mutex_unlock(&slots[i].mutex);
    }
    run_parts(tag);
    int64_t ownDone = now_ns();
    if (atomic_load_explicit(&pool.finished, memory_order_acquire) < parts) {
        int64_t deadline = ownDone + CALLER_SPIN_NS;
        for (uint32_t spins = 1; atomic_load_explicit(&pool.finished, memory_order_acquire) < parts; spins++) {
            relax();
            if ((spins & 63) != 0) continue;
            int64_t t = now_ns();
            if (t - ownDone > YIELD_AFTER_NS) sched_yield();
            if (t > deadline) {
                pthread_mutex_lock(&pool.mutex);
                atomic_store_explicit(&pool.callerWaiting, 1, memory_order_seq_cst);
                while (atomic_load_explicit(&pool.finished, memory_order_seq_cst) < parts)
                    pthread_cond_wait(&pool.done, &pool.mutex);
                atomic_store_explicit(&pool.callerWaiting, 0, memory_order_relaxed);
                pthread_mutex_unlock(&pool.mutex);
                break;
            }
        }
        int64_t end = now_ns();
        if (end - ownDone > ownDone - start + STALL_SLACK_NS) {
            atomic_fetch_add_explicit(&pool.stalls, 1, memory_order_relaxed);
            pool.backoff = pool.backoff < MIN_BACKOFF_NS ? MIN_BACKOFF_NS
                         : pool.backoff * 2 > MAX_BACKOFF_NS ? MAX_BACKOFF_NS : pool.backoff * 2;
            pool.aloneUntil = end + pool.backoff;
        } else {
            pool.backoff = 0;
        }
    } else {
        pool.backoff = 0;
    }
    atomic_store_explicit(&pool.busy, 0, memory_order_release);
}
