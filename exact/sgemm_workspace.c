/*
 * sgemm_workspace.c - per-thread reuse of the SGEMM driver's packing
 * workspace (see sgemm_workspace.h).
 *
 * The block lives in a thread-local record (so leak checkers see it as
 * reachable); a C11 thread-specific key with a destructor frees it when the
 * thread exits. The record is only ever touched by its own thread.
 */
#include "exact/sgemm_workspace.h"

#include <threads.h>

#include "common/smm_runtime.h"

typedef struct {
    float *block;
    size_t bytes;
    int busy;
} thread_workspace;

static _Thread_local thread_workspace mine;
static tss_t exit_key;
static int exit_key_ready;
static once_flag exit_key_once = ONCE_FLAG_INIT;

static void free_at_thread_exit(void *record)
{
    thread_workspace *ws = record;
    smm_aligned_free(ws->block);
    ws->block = NULL;
    ws->bytes = 0;
}

static void create_exit_key(void)
{
    exit_key_ready = tss_create(&exit_key, free_at_thread_exit) == thrd_success;
}

/* The calling thread's record, registered for freeing at its exit; NULL if that cannot be arranged. */
static thread_workspace *registered(void)
{
    call_once(&exit_key_once, create_exit_key);
    if (!exit_key_ready)
        return NULL;
    if (tss_get(exit_key) == NULL && tss_set(exit_key, &mine) != thrd_success)
        return NULL;
    return &mine;
}

float *sgemm_workspace_take(size_t bytes)
{
    thread_workspace *ws = bytes <= SGEMM_WORKSPACE_KEEP_MAX ? registered() : NULL;
    if (ws == NULL || ws->busy)
        return smm_aligned_alloc(bytes);
    if (ws->bytes < bytes) {
        smm_aligned_free(ws->block);
        ws->block = smm_aligned_alloc(bytes);
        ws->bytes = ws->block != NULL ? bytes : 0;
        if (ws->block == NULL)
            return NULL;
    }
    ws->busy = 1;
    return ws->block;
}

void sgemm_workspace_give(float *p)
{
    if (p != NULL && p == mine.block && mine.busy) {
        mine.busy = 0;
        return;
    }
    smm_aligned_free(p);
}
