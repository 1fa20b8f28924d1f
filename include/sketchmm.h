/*
 * sketchmm.h - the whole public API of sketchmm.
 *
 *   sketchmm/common.h  status codes, layouts, version, ISA path, threads
 *   sketchmm/exact.h   exact_sgemm
 *   sketchmm/sketch.h  SimHash codes, Hamming distances, estimators
 *   sketchmm/approx.h  approx_sgemm, plans, top-k
 *   sketchmm/unary.h   zero, identity and ReLU, plain and transposed
 *   sketchmm/mat4.h    4x4 multiply, inverse, copy (single and batched)
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

#endif /* SKETCHMM_H */
