/*
 * brgemm_jit_a64.c - the BRGEMM kernel writer for AArch64 (Advanced SIMD):
 * machine code for one description (brgemm_jit.h).
 *
 * The walk is that of the x86-64 writer (brgemm_jit_x86.c): bands of 16
 * rows, each cut into pieces of 4 rows in q registers (the last holding the
 * 1-3 remaining rows, loaded and stored as s, d, or d plus one lane), columns
 * in blocks of nb, one tile per (band, block) summing the whole batch in
 * registers before C is updated once. A k step loads the pieces of A's
 * column (ldr q at fixed offsets from a pointer that then moves on by lda),
 * and per column j one element of B (ldr s at j * ldb from a pointer that
 * moves on by one row) multiplied into every piece with fmla by element.
 * Loops count down with subs / b.ne (k) and sub / cbnz (batch, blocks,
 * bands); alpha and beta come from a pool ahead of the code (adr, ld1r).
 *
 * Registers: x0-x3 the arguments (A, B, C, batch), x4-x17 the walk (all
 * caller-saved, none saved); vector registers are handed out from v0-v7 and
 * v16-v31 first, and d8-d15 are saved only when a tile needs more.
 */
#include <string.h>

#include "exact/brgemm_jit.h"
#include "exact/jit_a64.h"
#include "sketchmm/common.h"

enum {
    R_A = 0, R_B = 1, R_C = 2, R_BATCH = 3,
    R_KA = 4,     /* A_i at the current step */
    R_KB = 5,     /* B_i at the current step */
    R_AI = 6,     /* strided: A_i of the tile; pointers: the walk over the array of A_i */
    R_BI = 7,     /* likewise for B */
    R_KCOUNT = 8, /* k-loop iterations left */
    R_ICOUNT = 9, /* batch entries left (several tiles; else R_BATCH itself) */
    R_BOFF = 10,  /* bytes from B_i to the block's first column */
    R_CT = 11,    /* C of the tile */
    R_JCOUNT = 12,
    R_AOFF = 13,  /* bytes from A_i (and C) to the band's first row */
    R_BANDS = 14,
    R_COL = 15,   /* C's column in the update */
    R_T0 = 16,    /* scratch: addresses, large constants */
    R_T1 = 17
};

#define POOL_ALPHA 0 /* alpha then beta: one d register, lanes 0 and 1 */
#define CODE_START 16
#define VL 4
#define BAND_ROWS 16
#define MAX_PIECES 4

enum { UPDATE_SET, UPDATE_ADD, UPDATE_GENERAL };

typedef struct {
    int off, live; /* rows off .. off + live - 1, live 1..4, in one q register */
} piece;

typedef struct {
    int rows, npieces;
    piece p[MAX_PIECES];
    int64_t nb_hi, blocks_hi, nb_lo, blocks_lo;
} band_shape;

typedef struct {
    jit_buf *b;
    const brgemm_jit_desc *d;
    float alpha, beta;
    int mode;
    int64_t bands;
    band_shape full, last;
    int multi_tile, use_aoff, use_boff;
    int save_high; /* d8-d15 in use */
} gen;

/* Vector registers in the order they are handed out: the callee-saved v8-v15 last. */
static int vreg(int i)
{
    return i < 8 ? i : i < 24 ? i + 8 : i - 16;
}

static void shape_band(gen *g, int rows, band_shape *s)
{
    memset(s, 0, sizeof *s);
    s->rows = rows;
    for (int off = 0; off < rows; off += VL) {
        const piece p = { off, rows - off < VL ? rows - off : VL };
        s->p[s->npieces++] = p;
    }
    const int mv = s->npieces;
    /* besides the accumulators: the pieces of A and B's element during the k steps, C, alpha, beta after them */
    const int64_t nb_max = (32 - (mv + 1 > 3 ? mv + 1 : 3)) / mv;
    const int64_t n = g->d->n, blocks = (n + nb_max - 1) / nb_max;
    s->nb_lo = n / blocks;
    s->blocks_hi = n % blocks;
    s->nb_hi = s->nb_lo + 1;
    s->blocks_lo = blocks - s->blocks_hi;
    const int nb = (int)(s->blocks_hi > 0 ? s->nb_hi : s->nb_lo);
    if (mv * nb + (mv + 1 > 3 ? mv + 1 : 3) > 24)
        g->save_high = 1;
}

/* rd := rn + v (v >= 0; large values through a scratch register). */
static void add_const(gen *g, int rd, int rn, int64_t v)
{
    a64_add_const(g->b, rd, rn, v, R_T1);
}

/* Piece p of a column at [base + p->off * 4] into or out of register r: q, s, d, or d and lane 2. */
static void move_piece(gen *g, int store, const piece *p, int r, int base)
{
    a64_move_floats(g->b, store, p->live, r, base, (int64_t)p->off * 4, R_T0, R_T1);
}

static int acc_reg(int nb, int v, int j)
{
    return vreg(v * nb + j);
}

/* One k step from A_i at R_KA and B_i at R_KB, which then move on by one column of A and one row of B. */
static void step(gen *g, const band_shape *s, int nb)
{
    const brgemm_jit_desc *d = g->d;
    const int mv = s->npieces, bre = vreg(mv * nb + mv);
    for (int v = 0; v < mv; v++)
        move_piece(g, 0, &s->p[v], vreg(mv * nb + v), R_KA);
    for (int j = 0; j < nb; j++) {
        const int64_t off = (int64_t)j * d->b_col * 4;
        if (off / 4 <= 4095) {
            a64_mem(g->b, A64_LDR_S, bre, R_KB, off);
        } else {
            a64_mov_imm(g->b, R_T0, (uint64_t)off);
            a64_mem_reg(g->b, A64_LDR_S_REG, bre, R_KB, R_T0);
        }
        for (int v = 0; v < mv; v++)
            a64_elem(g->b, A64_FMLA_ELEM_4S, acc_reg(nb, v, j), vreg(mv * nb + v), bre, 0);
    }
    add_const(g, R_KA, R_KA, d->lda * 4);
    add_const(g, R_KB, R_KB, d->b_step * 4);
}

static void k_steps(gen *g, const band_shape *s, int nb)
{
    const int64_t k = g->d->k, u = 4;
    if (k <= 2 * u) {
        for (int64_t p = 0; p < k; p++)
            step(g, s, nb);
        return;
    }
    a64_mov_imm(g->b, R_KCOUNT, (uint64_t)(k / u));
    const size_t top = g->b->len;
    for (int64_t p = 0; p < u; p++)
        step(g, s, nb);
    a64_addsub_imm(g->b, A64_SUBS_IMM, R_KCOUNT, R_KCOUNT, 1);
    a64_branch_to(g->b, A64_B_COND, A64_NE, top);
    for (int64_t p = 0; p < k % u; p++)
        step(g, s, nb);
}

static void update_c(gen *g, const band_shape *s, int nb, int cbase)
{
    const int mv = s->npieces, c = vreg(mv * nb), valpha = vreg(mv * nb + 1), vbeta = vreg(mv * nb + 2);
    const int scale = g->mode != UPDATE_ADD && g->alpha != 1.0f;
    const int general = g->mode == UPDATE_GENERAL;
    if (scale || general) { /* alpha and beta in every lane, from the pool */
        a64_branch_to(g->b, A64_ADR, R_T0, POOL_ALPHA);
        a64_mem(g->b, A64_LD1R_4S, valpha, R_T0, 0);
        a64_addsub_imm(g->b, A64_ADD_IMM, R_T0, R_T0, 4);
        a64_mem(g->b, A64_LD1R_4S, vbeta, R_T0, 0);
    }
    if (cbase != R_COL)
        a64_rrr(g->b, A64_ORR_REG, R_COL, 31, cbase);
    for (int j = 0; j < nb; j++) {
        for (int v = 0; v < mv; v++) {
            const int x = acc_reg(nb, v, j);
            if (scale)
                a64_rrr(g->b, A64_FMUL_4S, x, x, valpha); /* alpha * acc */
            if (g->mode == UPDATE_ADD) {
                move_piece(g, 0, &s->p[v], c, R_COL);
                a64_rrr(g->b, A64_FADD_4S, x, x, c);
            } else if (general) {
                move_piece(g, 0, &s->p[v], c, R_COL);
                a64_rrr(g->b, A64_FMLA_4S, x, c, vbeta); /* + beta * c, fused */
            }
            move_piece(g, 1, &s->p[v], x, R_COL);
        }
        if (j + 1 < nb)
            add_const(g, R_COL, R_COL, g->d->ldc * 4);
    }
}

static void tile(gen *g, const band_shape *s, int nb, int kind)
{
    const brgemm_jit_desc *d = g->d;
    const int mv = s->npieces;
    for (int r = 0; r < mv * nb; r++)
        a64_rr(g->b, A64_MOVI_ZERO_2D, vreg(r), 0);
    const int counter = g->multi_tile ? R_ICOUNT : R_BATCH;
    if (g->multi_tile)
        a64_rrr(g->b, A64_ORR_REG, counter, 31, R_BATCH);
    const int ai = g->multi_tile ? R_AI : R_A, bi = g->multi_tile ? R_BI : R_B;
    if (kind == BRGEMM_JIT_STRIDED) {
        if (g->use_aoff)
            a64_rrr(g->b, A64_ADD_REG, ai, R_A, R_AOFF);
        else if (ai != R_A)
            a64_rrr(g->b, A64_ORR_REG, ai, 31, R_A);
        if (g->use_boff)
            a64_rrr(g->b, A64_ADD_REG, bi, R_B, R_BOFF);
        else if (bi != R_B)
            a64_rrr(g->b, A64_ORR_REG, bi, 31, R_B);
    } else if (ai != R_A) {
        a64_rrr(g->b, A64_ORR_REG, ai, 31, R_A);
        a64_rrr(g->b, A64_ORR_REG, bi, 31, R_B);
    }
    const size_t top = g->b->len;
    if (kind == BRGEMM_JIT_POINTERS) {
        a64_mem(g->b, A64_LDR_X_POST, R_KA, ai, 8);
        a64_mem(g->b, A64_LDR_X_POST, R_KB, bi, 8);
        if (g->use_aoff)
            a64_rrr(g->b, A64_ADD_REG, R_KA, R_KA, R_AOFF);
        if (g->use_boff)
            a64_rrr(g->b, A64_ADD_REG, R_KB, R_KB, R_BOFF);
    } else {
        a64_rrr(g->b, A64_ORR_REG, R_KA, 31, ai);
        a64_rrr(g->b, A64_ORR_REG, R_KB, 31, bi);
    }
    k_steps(g, s, nb);
    if (kind == BRGEMM_JIT_STRIDED) {
        add_const(g, ai, ai, d->stride_a * 4);
        add_const(g, bi, bi, d->stride_b * 4);
    }
    a64_addsub_imm(g->b, A64_SUB_IMM, counter, counter, 1);
    a64_branch_to(g->b, A64_CBNZ, counter, top);
    update_c(g, s, nb, g->use_aoff || g->use_boff ? R_CT : R_C);
}

static void blocks_of(gen *g, const band_shape *s, int64_t nb, int64_t count, int kind)
{
    if (count == 0)
        return;
    size_t top = 0;
    if (count > 1) {
        a64_mov_imm(g->b, R_JCOUNT, (uint64_t)count);
        top = g->b->len;
    }
    tile(g, s, (int)nb, kind);
    if (g->use_boff) {
        add_const(g, R_BOFF, R_BOFF, nb * g->d->b_col * 4);
        add_const(g, R_CT, R_CT, nb * g->d->ldc * 4);
    }
    if (count > 1) {
        a64_addsub_imm(g->b, A64_SUB_IMM, R_JCOUNT, R_JCOUNT, 1);
        a64_branch_to(g->b, A64_CBNZ, R_JCOUNT, top);
    }
}

static void bands_of(gen *g, const band_shape *s, int64_t count, int kind)
{
    size_t top = 0;
    if (count > 1) {
        a64_mov_imm(g->b, R_BANDS, (uint64_t)count);
        top = g->b->len;
    }
    if (g->use_boff)
        a64_mov_imm(g->b, R_BOFF, 0);
    if (g->use_aoff)
        a64_rrr(g->b, A64_ADD_REG, R_CT, R_C, R_AOFF);
    else if (g->use_boff)
        a64_rrr(g->b, A64_ORR_REG, R_CT, 31, R_C);
    blocks_of(g, s, s->nb_hi, s->blocks_hi, kind);
    blocks_of(g, s, s->nb_lo, s->blocks_lo, kind);
    if (g->use_aoff)
        add_const(g, R_AOFF, R_AOFF, (int64_t)s->rows * 4);
    if (count > 1) {
        a64_addsub_imm(g->b, A64_SUB_IMM, R_BANDS, R_BANDS, 1);
        a64_branch_to(g->b, A64_CBNZ, R_BANDS, top);
    }
}

static void body(gen *g, int kind)
{
    if (g->save_high)
        for (int r = 8; r < 16; r += 2)
            a64_pair(g->b, A64_STP_D_PRE, r, r + 1, 31, -16);
    if (g->use_aoff)
        a64_mov_imm(g->b, R_AOFF, 0);
    if (g->bands > 1)
        bands_of(g, &g->full, g->bands - 1, kind);
    bands_of(g, &g->last, 1, kind);
    if (g->save_high)
        for (int r = 14; r >= 8; r -= 2)
            a64_pair(g->b, A64_LDP_D_POST, r, r + 1, 31, 16);
    a64_movw(g->b, A64_MOVZ, 0, 0, 0); /* returns SMM_OK */
    a64_ret(g->b);
}

int brgemm_jit_write_a64(const void *key, jit_buf *b, jit_entries *entries)
{
    const brgemm_jit_desc *d = key;
    if (d->isa != SMM_ISA_NEON || d->m < 1 || d->n < 1 || d->k < 1 || !brgemm_jit_sizes_ok(d))
        return 0;
    gen g;
    memset(&g, 0, sizeof g);
    g.b = b;
    g.d = d;
    memcpy(&g.alpha, &d->alpha_bits, sizeof g.alpha);
    memcpy(&g.beta, &d->beta_bits, sizeof g.beta);
    g.mode = g.beta == 0.0f ? UPDATE_SET : g.alpha == 1.0f && g.beta == 1.0f ? UPDATE_ADD : UPDATE_GENERAL;
    g.bands = (d->m + BAND_ROWS - 1) / BAND_ROWS;
    if (g.bands > 1)
        shape_band(&g, BAND_ROWS, &g.full);
    shape_band(&g, (int)(d->m - (g.bands - 1) * BAND_ROWS), &g.last);
    const int64_t blocks_full = g.bands > 1 ? g.full.blocks_hi + g.full.blocks_lo : 0;
    const int64_t blocks_last = g.last.blocks_hi + g.last.blocks_lo;
    g.use_aoff = g.bands > 1;
    g.use_boff = blocks_full > 1 || blocks_last > 1;
    g.multi_tile = g.bands > 1 || blocks_last > 1;

    jit_emit32(b, d->alpha_bits);
    jit_emit32(b, d->beta_bits);
    jit_align(b, CODE_START, 0);
    entries->at[BRGEMM_JIT_STRIDED] = b->len;
    body(&g, BRGEMM_JIT_STRIDED);
    entries->at[BRGEMM_JIT_POINTERS] = b->len;
    body(&g, BRGEMM_JIT_POINTERS);
    entries->count = 2;
    return !b->failed;
}
