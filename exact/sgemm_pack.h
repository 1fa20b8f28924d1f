/*
 * sgemm_pack.h - packing of A and B blocks into the micro-panel layouts the
 * SGEMM micro-kernels read (see sgemm_kernel_fn in sgemm_target.h).
 *
 * Source matrices are general strided views: element (i, j) of a view is
 * p[i * rs + j * cs] (strides in elements, either may be 1). Partial panels
 * are zero-padded to the full MR or NR width, so kernels always work on full
 * tiles and the padding contributes exact zeros.
 *
 * A micro-panel is a w-wide strip (w = MR for A, NR for B) laid out as
 * dst[p * w + i]. When the strip's source lines (rows of A, columns of B)
 * run along k contiguously, packing is a transpose; that case goes through
 * the target's pack_lines routine (vectorised per ISA). Every other case is
 * a strided copy done here in portable C.
 */
#ifndef SGEMM_PACK_H
#define SGEMM_PACK_H

#include <stdint.h>

#include "sgemm_target.h"

/* A strided, read-only matrix view: element (i, j) at p[i * rs + j * cs]. */
typedef struct {
    const float *p;
    int64_t rs, cs;
} sgemm_view;

/*
 * One A micro-panel: rows [0, rows) (rows <= mr) and columns [0, kc) of a,
 * written as Ap[p * mr + i]; rows rows .. mr-1 are zero. kc * mr floats.
 */
void sgemm_pack_a_panel(const sgemm_target *t, int64_t rows, int64_t kc, sgemm_view a,
                        float *restrict Ap);

/*
 * One B micro-panel: rows [0, kc) and columns [0, cols) (cols <= nr) of b,
 * written as Bp[p * nr + j]; columns cols .. nr-1 are zero. kc * nr floats.
 */
void sgemm_pack_b_panel(const sgemm_target *t, int64_t cols, int64_t kc, sgemm_view b,
                        float *restrict Bp);

/*
 * An mc x kc block of a as ceil(mc / mr) consecutive A micro-panels, panel r
 * (rows r*mr ..) at Ap + r * mr * kc.
 */
void sgemm_pack_a_block(const sgemm_target *t, int64_t mc, int64_t kc, sgemm_view a,
                        float *restrict Ap);

#endif /* SGEMM_PACK_H */
