/*
 * brgemm_tile_table.h - macros that stamp out the BRGEMM tile instances of
 * one ISA file and the table of them (library-internal; included by the
 * brgemm_kernel_*.c files only).
 *
 * The including file defines
 *     static inline void tile(int kind, int mv, int nb, const brgemm_args *g,
 *                             int rows, const brgemm_batch *bt, float *C);
 * always inlined, then writes for instance
 *     BRGEMM_TILES_24(0, 1) BRGEMM_TILES_24(1, 1)    (kinds 0 and 1, MV = 1, NB = 1..24)
 * to define tile_<kind>_<mv>_<nb> for each NB, and
 *     BRGEMM_ROW_24(0, 1)
 * inside an initializer to list them in NB order.
 *
 * A file may instead define
 *     static inline void tile_rows(int kind, int mv, int nb, int full, const brgemm_args *g,
 *                                  int rows, const brgemm_batch *bt, float *C);
 * and write BRGEMM_TILE_BY_FULL(VL): tile() then calls it with `full` a
 * compile-time 1 when the rows fill all mv vectors of VL floats (rows == mv * VL)
 * and 0 otherwise, so the common full block runs with no masks or lane-wise
 * pieces in its loop.
 */
#ifndef EXACT_BRGEMM_TILE_TABLE_H
#define EXACT_BRGEMM_TILE_TABLE_H

#define BRGEMM_TILE_BY_FULL(VL)                                                                     \
    static inline __attribute__((always_inline)) void tile(const int kind, const int mv, const int nb,  \
                                                           const brgemm_args *g, int rows,             \
                                                           const brgemm_batch *bt, float *C)           \
    {                                                                                             \
        if (rows == (VL) * mv)                                                                    \
            tile_rows(kind, mv, nb, 1, g, rows, bt, C);                                           \
        else                                                                                      \
            tile_rows(kind, mv, nb, 0, g, rows, bt, C);                                           \
    }

#define BRGEMM_TILE(K, MV, NB)                                                                       \
    static void tile_##K##_##MV##_##NB(const brgemm_args *g, int rows, const brgemm_batch *bt,     \
                                       float *C)                                                  \
    {                                                                                             \
        tile(K, MV, NB, g, rows, bt, C);                                                          \
    }

#define BRGEMM_TILES_4(K, MV) BRGEMM_TILE(K, MV, 1) BRGEMM_TILE(K, MV, 2) BRGEMM_TILE(K, MV, 3) BRGEMM_TILE(K, MV, 4)
#define BRGEMM_TILES_6(K, MV) BRGEMM_TILES_4(K, MV) BRGEMM_TILE(K, MV, 5) BRGEMM_TILE(K, MV, 6)
#define BRGEMM_TILES_8(K, MV) BRGEMM_TILES_6(K, MV) BRGEMM_TILE(K, MV, 7) BRGEMM_TILE(K, MV, 8)
#define BRGEMM_TILES_12(K, MV)                                                                      \
    BRGEMM_TILES_8(K, MV) BRGEMM_TILE(K, MV, 9) BRGEMM_TILE(K, MV, 10) BRGEMM_TILE(K, MV, 11)       \
    BRGEMM_TILE(K, MV, 12)
#define BRGEMM_TILES_16(K, MV)                                                                      \
    BRGEMM_TILES_12(K, MV) BRGEMM_TILE(K, MV, 13) BRGEMM_TILE(K, MV, 14) BRGEMM_TILE(K, MV, 15)     \
    BRGEMM_TILE(K, MV, 16)
#define BRGEMM_TILES_24(K, MV)                                                                      \
    BRGEMM_TILES_16(K, MV) BRGEMM_TILE(K, MV, 17) BRGEMM_TILE(K, MV, 18) BRGEMM_TILE(K, MV, 19)     \
    BRGEMM_TILE(K, MV, 20) BRGEMM_TILE(K, MV, 21) BRGEMM_TILE(K, MV, 22) BRGEMM_TILE(K, MV, 23)     \
    BRGEMM_TILE(K, MV, 24)

#define BRGEMM_E(K, MV, NB) tile_##K##_##MV##_##NB
#define BRGEMM_ROW_4(K, MV) BRGEMM_E(K, MV, 1), BRGEMM_E(K, MV, 2), BRGEMM_E(K, MV, 3), BRGEMM_E(K, MV, 4)
#define BRGEMM_ROW_6(K, MV) BRGEMM_ROW_4(K, MV), BRGEMM_E(K, MV, 5), BRGEMM_E(K, MV, 6)
#define BRGEMM_ROW_8(K, MV) BRGEMM_ROW_6(K, MV), BRGEMM_E(K, MV, 7), BRGEMM_E(K, MV, 8)
#define BRGEMM_ROW_12(K, MV)                                                                        \
    BRGEMM_ROW_8(K, MV), BRGEMM_E(K, MV, 9), BRGEMM_E(K, MV, 10), BRGEMM_E(K, MV, 11), BRGEMM_E(K, MV, 12)
#define BRGEMM_ROW_16(K, MV)                                                                        \
    BRGEMM_ROW_12(K, MV), BRGEMM_E(K, MV, 13), BRGEMM_E(K, MV, 14), BRGEMM_E(K, MV, 15),            \
        BRGEMM_E(K, MV, 16)
#define BRGEMM_ROW_24(K, MV)                                                                        \
    BRGEMM_ROW_16(K, MV), BRGEMM_E(K, MV, 17), BRGEMM_E(K, MV, 18), BRGEMM_E(K, MV, 19),            \
        BRGEMM_E(K, MV, 20), BRGEMM_E(K, MV, 21), BRGEMM_E(K, MV, 22), BRGEMM_E(K, MV, 23),          \
        BRGEMM_E(K, MV, 24)

#endif /* EXACT_BRGEMM_TILE_TABLE_H */
