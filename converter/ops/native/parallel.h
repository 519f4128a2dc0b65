/* A pool of worker threads for the native kernels (parallel.c). */
#ifndef EXTGEN_PARALLEL_H
#define EXTGEN_PARALLEL_H
#include <stddef.h>

typedef void (*extgen_task)(void *arg, size_t part, size_t parts);

/* task(arg, p, parts) for every p < parts, part 0 on the calling thread and the others on the
   pool's workers (started on first need), returning when all are done. Where the pool is busy
   with another caller's task, or a worker cannot be started, the caller runs every part. */
void extgen_parallel(extgen_task task, void *arg, size_t parts);

#define GRAIN 32768 /* output values per thread below which fewer threads split the work */

/* How many threads to split `items` (of `work` output values in all) over. */
static inline size_t parts_for(size_t work, size_t items, size_t threads) {
    size_t parts = work / GRAIN;
    parts = parts < threads ? parts : threads;
    parts = parts < items ? parts : items;
    return parts ? parts : 1;
}

#endif
