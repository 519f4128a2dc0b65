/* A pool of worker threads for the native kernels (parallel.c). */
#ifndef EXTGEN_PARALLEL_H
#define EXTGEN_PARALLEL_H
#include <stddef.h>

typedef void (*extgen_task)(void *arg, size_t part, size_t parts);

/* task(arg, p, parts) for every p < parts, claimed by the calling thread and up to threads - 1
   of the pool's workers (started on first need), returning when all are done. Where the pool is
   busy with another caller's task, or a worker cannot be started, the caller runs every part. */
void extgen_parallel(extgen_task task, void *arg, size_t parts, size_t threads);

#define GRAIN 32768 /* output values per thread below which fewer threads split the work */
#define SPLIT 2 /* parts per thread: a thread the OS holds back holds up half its share */

/* How many parts to split `items` (of `work` output values in all) into for `threads` threads:
   one where the work is too small to share, else up to SPLIT per thread, each of GRAIN / SPLIT
   values or more. */
static inline size_t parts_for(size_t work, size_t items, size_t threads) {
    if (threads < 2 || work / GRAIN < 2 || items < 2) return 1;
    size_t parts = work / (GRAIN / SPLIT);
    parts = parts < threads * SPLIT ? parts : threads * SPLIT;
    return parts < items ? parts : items;
}

#endif
