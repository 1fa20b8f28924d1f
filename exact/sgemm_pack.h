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

/*
 * Lines per group of the copying packers: about 1 KiB of each source row is
 * read per run (see pack_panels in sgemm_pack.c). When the driver packs B
 * just before use (one thread, or one ic block), it goes a group of this
 * many columns at a time.
 */
#define SGEMM_PACK_GROUP_FLOATS 256

/* A strided, read-only matrix view: element (i, j) at p[i * rs + j * cs]. */
typedef struct {
    const float *p;
    int64_t rs, cs;
} sgemm_view;

/*
 * An mc x kc block of a as ceil(mc / mr) consecutive A micro-panels: panel r
 * holds rows r*mr .. r*mr+mr-1 as Ap[r * mr * kc + p * mr + i]; rows past mc
 * are zero.
 */
void sgemm_pack_a_block(const sgemm_target *t, int64_t mc, int64_t kc, sgemm_view a,
                        float *restrict Ap);

/*
 * A kc x nc block of b as ceil(nc / nr) consecutive B micro-panels: panel r
 * holds columns r*nr .. r*nr+nr-1 as Bp[r * nr * kc + p * nr + j]; columns
 * past nc are zero.
 */
void sgemm_pack_b_block(const sgemm_target *t, int64_t nc, int64_t kc, sgemm_view b,
                        float *restrict Bp);

#endif /* SGEMM_PACK_H */
