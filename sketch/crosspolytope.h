/*
 * crosspolytope.h - library-internal cross-polytope LSH entry points
 * (sketch/ module): layout and field masks, the encoder (called by
 * sketch_encode and sketch_code_words), the match-count row kernels and the
 * calibration table. The public definitions are in sketchmm/sketch.h
 * ("Cross-polytope LSH").
 */
#ifndef SKETCH_CROSSPOLYTOPE_H
#define SKETCH_CROSSPOLYTOPE_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "common/smm_runtime.h"
#include "sketchmm/sketch.h"

/* Words per cross-polytope code for dimension d and a budget of `bits` bits. */
smm_status crosspolytope_code_words(int64_t d, int32_t bits, int64_t *words);

/* sketch_encode(SKETCH_CROSSPOLYTOPE, ...) with an explicit context (ctx->threads threads). */
smm_status crosspolytope_encode_with(const smm_context *ctx, smm_layout layout,
                                     int64_t n, int64_t d, const float *X, int64_t ldx,
                                     int32_t bits, uint64_t seed,
                                     uint64_t *codes, int64_t ldcodes, float *norms);

/*
 * The field masks of word w of a code of layout lay (0 <= w < lay->words):
 * *hi has the top bit of every used field of the word, *lo the other bits of
 * those fields (so hi | lo = the used bits, and the unused bits are in neither).
 */
void crosspolytope_word_masks(const sketch_cp_layout *lay, int64_t w, uint64_t *hi, uint64_t *lo);

/*
 * Match-count row kernels. One contract for every ISA:
 *
 *   out[j] = fields - sum over w < words of popcount(nz_w(q[w] xor b_j[w])),
 *   nz_w(x) = (((x & lo[w]) + lo[w]) | x) & hi[w],         0 <= j < nb,
 *
 * where b_j = b + j * ldb. nz_w has bit (top of field f) set exactly when
 * field f of x is not 0: adding lo carries into a field's top bit iff its
 * lower bits are not all 0, and never out of the field (the sum of a field's
 * lower bits and lo is below 2^width). With lo/hi from crosspolytope_word_masks
 * and fields = lay->hashes, out[j] is the number of equal hashes.
 * Preconditions: words >= 1, ldb >= words, nb >= 0, fields <= 65535, out has
 * nb elements and does not overlap the inputs. Kernels read exactly those
 * words, write out[0 .. nb) and never fail; results are identical for every
 * kernel.
 */
typedef void (*cp_match_row_fn)(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                                int64_t words, const uint64_t *hi, const uint64_t *lo,
                                uint32_t fields, uint16_t *out);

/* Portable reference (crosspolytope_match_scalar.c, compiler popcount). */
void cp_match_row_scalar(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                         int64_t words, const uint64_t *hi, const uint64_t *lo,
                         uint32_t fields, uint16_t *out);
#if defined(__x86_64__)
/* AVX2 (nibble-table popcount). Needs AVX2. */
void cp_match_row_avx2(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                       int64_t words, const uint64_t *hi, const uint64_t *lo,
                       uint32_t fields, uint16_t *out);
/* AVX-512 VPOPCNTDQ. Needs AVX-512 F/BW/DQ/VL + VPOPCNTDQ. */
void cp_match_row_avx512(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                         int64_t words, const uint64_t *hi, const uint64_t *lo,
                         uint32_t fields, uint16_t *out);
#endif

/* The match kernel of one ISA path: a row of the table of crosspolytope_match.c. */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2" or "avx512_vpopcntdq" */
    cp_match_row_fn row;
} cp_match_kernels;

/*
 * The row of path isa on this CPU (SMM_KERNELS_FOR, common/smm_dispatch.h):
 * never NULL; the AVX-512 row needs AVX512_VPOPCNTDQ, without it the AVX2
 * row runs; NEON, SMM_ISA_AUTO and paths without a row give the scalar row.
 * Its head.name is what sketch_crosspolytope_kernel_name reports.
 */
const cp_match_kernels *cp_match_kernels_for(smm_isa isa);

/*
 * Calibration table (crosspolytope_table.c, generated; sketch.h and the
 * generator scripts document how): collision probabilities at the angles
 * theta_k = k * pi / CP_TABLE_STEPS, k = 0 .. CP_TABLE_STEPS, of the hash of
 * dimension 2^e2 on the first 2^e2 coordinates of an HD-rotation of dimension
 * 2^e. For e <= CP_TABLE_MC_MAX_LOG2 they were measured on the implemented
 * hash (Monte Carlo); above, they are the Gaussian-model p_(2^e2).
 */
#define CP_TABLE_STEPS 256
#define CP_TABLE_MAX_LOG2 24
#define CP_TABLE_MC_MAX_LOG2 10
/* The row for (e, e2) (CP_TABLE_STEPS + 1 values), or NULL unless 1 <= e <= 24, 0 <= e2 <= e. */
const double *cp_table_row(int e, int e2);

#endif /* SKETCH_CROSSPOLYTOPE_H */
