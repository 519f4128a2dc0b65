/* The native kernels' worker pool. A task's parts are claimed one at a time from a shared
   word (generation, parts, next part), by the caller as well as the workers, so a worker the
   OS has not scheduled yet never holds the caller up: the caller runs the parts nobody took.
   A worker that has finished spins a while for the next task (the shim's steps follow each
   other closely), then sleeps on a condition variable, so an idle shim does not hold a CPU.
   One task at a time; a forked child starts with no workers and starts its own. */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define MAX_WORKERS 63
#define SPIN_NS 2000000L /* how long an idle worker spins before it sleeps */

/* the shared word: generation << 32 | parts << 16 | next part */
#define GENERATION(w) ((uint32_t)((w) >> 32))
#define PARTS(w) ((size_t)(((w) >> 16) & 0xFFFF))
#define NEXT(w) ((size_t)((w) & 0xFFFF))

static struct {
    pthread_mutex_t lock; /* guards sleeping and waking */
    pthread_cond_t wake;
    pthread_mutex_t busy; /* held by the caller whose task runs */
    _Atomic uint64_t word;
    atomic_size_t done; /* parts of the current task finished */
    extgen_task task;
    void *arg;
    size_t workers;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
          .busy = PTHREAD_MUTEX_INITIALIZER};

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static long elapsed_ns(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000000000L + (now.tv_nsec - since->tv_nsec);
}

/* Runs parts of the task published in the word until none is left unclaimed; its generation.
   A claim succeeds only while the task is unfinished, so task and arg are still its own. */
static uint32_t run_parts(void) {
    uint64_t w = atomic_load_explicit(&pool.word, memory_order_acquire);
    while (NEXT(w) < PARTS(w)) {
        if (atomic_compare_exchange_weak_explicit(&pool.word, &w, w + 1, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            pool.task(pool.arg, NEXT(w), PARTS(w));
            atomic_fetch_add_explicit(&pool.done, 1, memory_order_release);
            w = atomic_load_explicit(&pool.word, memory_order_acquire);
        }
    }
    return GENERATION(w);
}

/* Waits for a generation other than `seen`: spinning for SPIN_NS, then sleeping. */
static void await_task(uint32_t seen) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (unsigned i = 1; GENERATION(atomic_load_explicit(&pool.word, memory_order_acquire)) == seen;
         i++) {
        relax();
        if (i % 1024 == 0 && elapsed_ns(&start) > SPIN_NS) {
            pthread_mutex_lock(&pool.lock);
            while (GENERATION(atomic_load(&pool.word)) == seen)
                pthread_cond_wait(&pool.wake, &pool.lock);
            pthread_mutex_unlock(&pool.lock);
            return;
        }
    }
}

static void *work(void *unused) {
    (void)unused;
    for (uint32_t seen = GENERATION(atomic_load(&pool.word));;) {
        await_task(seen);
        seen = run_parts();
    }
    return NULL;
}

static void forget_workers(void) { /* in a forked child, where only the forking thread lives */
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_mutex_init(&pool.busy, NULL);
    pool.workers = 0;
}

/* Workers up to `wanted` (the caller holds busy); whether the pool could be used. */
static int start_workers(size_t wanted) {
    static int registered;
    if (!registered) registered = pthread_atfork(NULL, NULL, forget_workers) == 0;
    if (!registered) return 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (pool.workers < wanted && pool.workers < MAX_WORKERS) {
        pthread_t thread;
        if (pthread_create(&thread, &attr, work, NULL)) break;
        pool.workers++;
    }
    pthread_attr_destroy(&attr);
    return pool.workers > 0;
}

void extgen_parallel(extgen_task task, void *arg, size_t parts, size_t threads) {
    if (parts > 0xFFFF) parts = 0xFFFF;
    if (parts < 2 || threads < 2 || pthread_mutex_trylock(&pool.busy)) {
        for (size_t p = 0; p < parts; p++) task(arg, p, parts);
        return;
    }
    if (start_workers((threads < parts ? threads : parts) - 1)) {
        pool.task = task, pool.arg = arg;
        atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
        uint64_t generation = GENERATION(atomic_load(&pool.word)) + 1u;
        pthread_mutex_lock(&pool.lock);
        atomic_store_explicit(&pool.word, (uint64_t)(uint32_t)generation << 32 | parts << 16,
                              memory_order_release);
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
        run_parts();
        /* a worker just woken may share the caller's CPU until the OS moves it: yield to it */
        for (unsigned i = 1; atomic_load_explicit(&pool.done, memory_order_acquire) < parts; i++)
            if (i % 256 == 0) sched_yield();
            else relax();
    } else {
        for (size_t p = 0; p < parts; p++) task(arg, p, parts);
    }
    pthread_mutex_unlock(&pool.busy);
}
