/*
 * fwht_plan.h - library-internal pass schedule of the vector FWHT kernels
 * (fwht_avx2.c, fwht_avx512.c, fwht_neon.c): one planner for all of them.
 *
 * A vector kernel holds `lanes` floats per register and works on at most
 * `max_regs` registers at a time (powers of two, lanes <= D). It does the
 * butterfly stages h = 1, 2, 4, .., D/2 of hd_rotation.h in passes over
 * memory, each pass a run of consecutive stages:
 *
 *   pass 0 (h0 = lanes): blocks of regs * lanes consecutive floats, each in
 *     regs registers (the sign flip applied as they are loaded); the stages
 *     h < lanes inside every register, then h = lanes .. lanes * regs / 2
 *     between the registers;
 *   pass p >= 1, starting at stage h0: regs registers h0 floats apart per
 *     trip through memory, the stages h = h0 .. h0 * regs / 2 between them.
 *
 * Each pass takes as many stages as its registers hold:
 * regs = min(D / h0, max_regs), and the next pass starts at h0 * regs, so
 * the passes cover every stage once, in order; regs is 1 only for pass 0
 * when D == lanes, and at least 2 in every later pass. Same additions in
 * the same stage order as fwht_scalar whatever the schedule.
 */
#ifndef SKETCH_FWHT_PLAN_H
#define SKETCH_FWHT_PLAN_H

#include <stdint.h>

#include "sketch/hd_rotation.h"

/* Passes at most: HD_MAX_DIM = 2^24 with 4 lanes and 2 registers per pass. */
#define FWHT_MAX_PASSES 24

typedef struct {
    int passes;                    /* >= 1 */
    int regs[FWHT_MAX_PASSES];     /* registers of pass p: 1 .. max_regs */
    int64_t h0[FWHT_MAX_PASSES];   /* first stage of pass p (lanes for pass 0) */
} fwht_plan;

/*
 * The passes of an FWHT of order D (a power of two, lanes <= D <= HD_MAX_DIM)
 * for a kernel of `lanes` floats per register and at most max_regs (>= 2)
 * registers per pass. Inline: the kernels' constants fold into it.
 */
static inline void fwht_plan_make(fwht_plan *plan, int64_t D, int lanes, int max_regs)
{
    int p = 0;
    for (int64_t h0 = lanes; h0 < D || p == 0; p++) {
        const int64_t left = D / h0; /* 2^(stages left) */
        const int regs = left < max_regs ? (int)left : max_regs;
        plan->regs[p] = regs;
        plan->h0[p] = h0;
        h0 *= regs;
    }
    plan->passes = p;
}

/*
 * The body of a vector kernel's fwht_flip_<isa>: plans the passes and runs
 * them through the file's own pass_first(v, flip, D, R) and
 * pass_later(v, D, h0, R), each called with a constant register count R
 * (1, 2, 4, 8 or max_regs) so that it compiles to a loop over registers.
 */
#define FWHT_RUN_PASSES(v, flip, D, lanes, max_regs)                                  \
    do {                                                                              \
        fwht_plan plan_;                                                              \
        fwht_plan_make(&plan_, (D), (lanes), (max_regs));                             \
        switch (plan_.regs[0]) {                                                      \
        case 1: pass_first((v), (flip), (D), 1); break;                               \
        case 2: pass_first((v), (flip), (D), 2); break;                               \
        case 4: pass_first((v), (flip), (D), 4); break;                               \
        case 8: pass_first((v), (flip), (D), 8); break;                               \
        default: pass_first((v), (flip), (D), (max_regs)); break;                     \
        }                                                                             \
        for (int p_ = 1; p_ < plan_.passes; p_++) {                                   \
            switch (plan_.regs[p_]) {                                                 \
            case 2: pass_later((v), (D), plan_.h0[p_], 2); break;                     \
            case 4: pass_later((v), (D), plan_.h0[p_], 4); break;                     \
            case 8: pass_later((v), (D), plan_.h0[p_], 8); break;                     \
            default: pass_later((v), (D), plan_.h0[p_], (max_regs)); break;           \
            }                                                                         \
        }                                                                             \
    } while (0)

#endif /* SKETCH_FWHT_PLAN_H */
