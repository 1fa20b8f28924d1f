/*
 * sgemm_workspace.h - the packed-operand workspace of the blocked SGEMM
 * driver, kept by each calling thread between calls.
 *
 * Packing writes a few MiB of workspace per call. Allocated and freed each
 * call, those pages were mapped and zeroed by the kernel every time (about
 * 300 page faults, 4 huge pages among them, per 2048^3 product), 1-4% of a
 * call's time on the machines measured (docs/tuning.md). Instead each
 * calling thread keeps its largest workspace up to SGEMM_WORKSPACE_KEEP_MAX
 * bytes and reuses it; it is freed when the thread exits. Requests above
 * the limit, or made while the thread's workspace is in use, are allocated
 * and freed as before.
 */
#ifndef SKETCHMM_EXACT_SGEMM_WORKSPACE_H
#define SKETCHMM_EXACT_SGEMM_WORKSPACE_H

#include <stddef.h>

#define SGEMM_WORKSPACE_KEEP_MAX ((size_t)64 << 20)

/* A 64-byte aligned block of at least bytes bytes (huge-page aligned from 8 MiB), or NULL. */
float *sgemm_workspace_take(size_t bytes);

/* Return a block from sgemm_workspace_take (kept for the next call, or freed). */
void sgemm_workspace_give(float *p);

#endif
