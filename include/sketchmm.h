/*
 * sketchmm.h - the whole public API of sketchmm.
 *
 *   sketchmm/common.h  status codes, layouts, version, ISA path, threads
 *   sketchmm/exact.h   exact_sgemm, padded matrix allocation
 *   sketchmm/sketch.h  sketch methods, codes, Hamming distances, estimators
 *   sketchmm/approx.h  approx_sgemm, plans, top-k
 *   sketchmm/unary.h   zero, identity and ReLU, plain and transposed
 *   sketchmm/mat4.h    4x4 multiply, inverse, copy (single and batched)
 *   sketchmm/brgemm.h  batch-reduce GEMM on small matrices: describe, plan, execute
 *   sketchmm/jit.h     run-time code generation: status and statistics
 *   sketchmm/tuning.h  the exact core's configuration, where it came from, and its tuner
 */
#ifndef SKETCHMM_H
#define SKETCHMM_H

#include "sketchmm/common.h"
#include "sketchmm/exact.h"
#include "sketchmm/sketch.h"
#include "sketchmm/approx.h"
#include "sketchmm/unary.h"
#include "sketchmm/mat4.h"
#include "sketchmm/brgemm.h"
#include "sketchmm/jit.h"
#include "sketchmm/tuning.h"

#endif /* SKETCHMM_H */
