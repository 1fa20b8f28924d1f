/*
 * unary_jit_a64.c - the unary-primitive kernel writer for AArch64 (Advanced
 * SIMD): machine code for one description (unary_jit.h). The NEON path has
 * no precompiled unary kernels of its own (it runs the scalar twins), so
 * these are its kernels whenever generation is on.
 *
 * Copy: a loop over rows, each row in q registers (unrolled, or a loop of
 * four for long rows) and the last 1-3 floats as s, d or d plus one lane.
 * ReLU: fcmlt (x < 0, false for NaN and -0) then bic clears those lanes, so
 * NaN payloads and -0 stay, as in the scalar twin.
 * Transpose: 4 x 4 tiles down each group of 4 lines of A (ldr q from four
 * line pointers that move on by 16 bytes, trn1 / trn2 then zip1 / zip2 on
 * 64-bit halves, str q into four rows of B); the lines and rows that do not
 * fill a tile element by element.
 */
#include <string.h>

#include "exact/jit_a64.h"
#include "exact/unary_jit.h"
#include "sketchmm/unary.h"

enum {
    R_A = 0, R_B = 1, R_ROWS = 2,
    R_COUNT = 3,
    R_WA = 4, R_WB = 5,   /* walks */
    R_LINE = 6,           /* x6-x9: four line pointers of A */
    R_OUT = 10,           /* a row of B */
    R_T0 = 16, R_T1 = 17  /* scratch: addresses and large constants */
};

#define V_ZERO 31
#define V_MASK 30

typedef struct {
    jit_buf *b;
    const unary_jit_desc *d;
    int relu, zero_op;
} gen;

/* rd := rn + v (v >= 0; large values through a scratch register). */
static void add_const(gen *g, int rd, int rn, int64_t v)
{
    a64_add_const(g->b, rd, rn, v, R_T1);
}

/* A load or store of register r at [base + off] (off >= 0), through a scratch address when far. */
static void mem_at(gen *g, a64_op op, int r, int base, int64_t off)
{
    a64_mem_far(g->b, op, r, base, off, R_T0, R_T1);
}

/* n (1..4) floats at [base + off] into or out of the low lanes of register r. */
static void move_floats(gen *g, int store, int n, int r, int base, int64_t off)
{
    a64_move_floats(g->b, store, n, r, base, off, R_T0, R_T1);
}

static void relu(gen *g, int r)
{
    a64_rr(g->b, A64_FCMLT_ZERO_4S, V_MASK, r);
    a64_rrr(g->b, A64_BIC_16B, r, r, V_MASK);
}

/* n floats of a row: B[off] = op(A[off]) through register r. */
static void copy_floats(gen *g, int n, int a, int b, int64_t off, int r)
{
    int src = V_ZERO;
    if (!g->zero_op) {
        move_floats(g, 0, n, r, a, off);
        if (g->relu)
            relu(g, r);
        src = r;
    }
    move_floats(g, 1, n, src, b, off);
}

static void write_copy(gen *g, jit_entries *entries)
{
    const unary_jit_desc *d = g->d;
    const int64_t full = d->cols / 4, tail = d->cols % 4;
    entries->at[0] = g->b->len;
    entries->count = 1;
    if (g->zero_op)
        a64_rr(g->b, A64_MOVI_ZERO_2D, V_ZERO, 0);
    const size_t top = g->b->len;
    int a = R_A, b = R_B;
    int64_t done = 0;
    if (full > 32) {
        a64_rrr(g->b, A64_ORR_REG, R_WA, 31, R_A);
        a64_rrr(g->b, A64_ORR_REG, R_WB, 31, R_B);
        a64_mov_imm(g->b, R_COUNT, (uint64_t)(full / 4));
        const size_t inner = g->b->len;
        for (int i = 0; i < 4; i++)
            copy_floats(g, 4, R_WA, R_WB, 16 * i, i);
        add_const(g, R_WA, R_WA, 64);
        add_const(g, R_WB, R_WB, 64);
        a64_addsub_imm(g->b, A64_SUBS_IMM, R_COUNT, R_COUNT, 1);
        a64_branch_to(g->b, A64_B_COND, A64_NE, inner);
        a = R_WA;
        b = R_WB;
        done = full / 4 * 4;
    }
    int64_t off = 0;
    for (int64_t i = done; i < full; i++, off += 16)
        copy_floats(g, 4, a, b, off, (int)(i % 8));
    if (tail > 0)
        copy_floats(g, (int)tail, a, b, off, 0);
    if (!g->zero_op)
        add_const(g, R_A, R_A, d->lda * 4);
    add_const(g, R_B, R_B, d->ldb * 4);
    a64_addsub_imm(g->b, A64_SUBS_IMM, R_ROWS, R_ROWS, 1);
    a64_branch_to(g->b, A64_B_COND, A64_NE, top);
    a64_ret(g->b);
}

/* One element at byte offsets from two bases (through the scratch addresses when far). */
static void element_at(gen *g, int a, int64_t aoff, int b, int64_t boff)
{
    mem_at(g, A64_LDR_S, 0, a, aoff);
    if (g->relu)
        relu(g, 0);
    mem_at(g, A64_STR_S, 0, b, boff);
}

/*
 * A block of nr rows x nc columns of B (lines of A). Groups of 4 lines walk
 * down the rows in 4 x 4 tiles; what is left is done element by element.
 */
static void block(gen *g, int64_t nr, int64_t nc)
{
    const unary_jit_desc *d = g->d;
    jit_buf *b = g->b;
    const int64_t lda4 = d->lda * 4, ldb4 = d->ldb * 4, tiles = nr / 4, cf = nc / 4 * 4;
    for (int64_t c = 0; c < cf && tiles > 0; c += 4) {
        for (int i = 0; i < 4; i++)
            add_const(g, R_LINE + i, R_A, (c + i) * lda4);
        add_const(g, R_WB, R_B, c * 4);
        a64_mov_imm(b, R_COUNT, (uint64_t)tiles);
        const size_t top = b->len;
        for (int i = 0; i < 4; i++) {
            a64_mem(b, A64_LDR_Q_POST, i, R_LINE + i, 16);
            if (g->relu)
                relu(g, i);
        }
        a64_rrr(b, A64_TRN1_4S, 4, 0, 1);
        a64_rrr(b, A64_TRN2_4S, 5, 0, 1);
        a64_rrr(b, A64_TRN1_4S, 6, 2, 3);
        a64_rrr(b, A64_TRN2_4S, 7, 2, 3);
        a64_rrr(b, A64_ZIP1_2D, 0, 4, 6);
        a64_rrr(b, A64_ZIP1_2D, 1, 5, 7);
        a64_rrr(b, A64_ZIP2_2D, 2, 4, 6);
        a64_rrr(b, A64_ZIP2_2D, 3, 5, 7);
        a64_rrr(b, A64_ORR_REG, R_OUT, 31, R_WB);
        for (int k = 0; k < 4; k++) {
            a64_mem(b, A64_STR_Q, k, R_OUT, 0);
            if (k < 3)
                add_const(g, R_OUT, R_OUT, ldb4);
        }
        add_const(g, R_WB, R_WB, 4 * ldb4);
        a64_addsub_imm(b, A64_SUBS_IMM, R_COUNT, R_COUNT, 1);
        a64_branch_to(b, A64_B_COND, A64_NE, top);
    }
    if (cf < nc) { /* the last nc - cf lines, every row: a loop down the rows */
        a64_rrr(b, A64_ORR_REG, R_WA, 31, R_A);
        a64_rrr(b, A64_ORR_REG, R_WB, 31, R_B);
        a64_mov_imm(b, R_COUNT, (uint64_t)nr);
        const size_t top = b->len;
        for (int64_t c = cf; c < nc; c++)
            element_at(g, R_WA, c * lda4, R_WB, c * 4);
        add_const(g, R_WA, R_WA, 4);
        add_const(g, R_WB, R_WB, ldb4);
        a64_addsub_imm(b, A64_SUBS_IMM, R_COUNT, R_COUNT, 1);
        a64_branch_to(b, A64_B_COND, A64_NE, top);
    }
    for (int64_t r = tiles * 4; r < nr; r++) /* the last nr % 4 rows, the first cf columns */
        for (int64_t c = 0; c < cf; c++)
            element_at(g, R_A, c * lda4 + r * 4, R_B, r * ldb4 + c * 4);
}

static void write_transpose(gen *g, jit_entries *entries)
{
    int64_t shape[4][2];
    int written_as[4];
    unary_jit_blocks(g->d, shape, written_as);
    entries->count = 4;
    for (int e = 0; e < 4; e++) {
        entries->at[e] = written_as[e] == e ? g->b->len : entries->at[written_as[e]];
        if (written_as[e] == e) {
            block(g, shape[e][0], shape[e][1]);
            a64_ret(g->b);
        }
    }
}

int unary_jit_write_a64(const void *key, jit_buf *b, jit_entries *entries)
{
    const unary_jit_desc *d = key;
    if (d->isa != SMM_ISA_NEON || !unary_jit_valid(d))
        return 0;
    gen g;
    memset(&g, 0, sizeof g);
    g.b = b;
    g.d = d;
    g.relu = d->op == UNARY_RELU;
    g.zero_op = d->op == UNARY_ZERO;
    if (d->transpose)
        write_transpose(&g, entries);
    else
        write_copy(&g, entries);
    return !b->failed;
}
