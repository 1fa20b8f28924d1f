/*
 * unary_jit_x86.c - the unary-primitive kernel writer for x86-64 (AVX-512
 * and AVX2): machine code for one description (unary_jit.h), following the
 * precompiled kernels' algorithms (unary_avx512.c, unary_avx2.c) with every
 * size, leading dimension and edge known when the code is written.
 *
 * Copy: a loop over rows; each row in whole vectors (unrolled, or a loop of
 * four vectors for long rows) and a tail under a mask (opmask, or
 * vmaskmovps); ReLU is vmaxps with zero as the first operand (the second is
 * returned for NaN and for two zeros: NaN payloads and -0 survive).
 * Transpose (AVX-512): 16 x 16 tiles down the block; a full tile is
 * assembled from 128-bit loads inserted into the four lanes of four zmm
 * registers, leaving one 4 x 4 transpose per lane (unpack, shuffle); an edge
 * tile is loaded under masks (missing lines zero) and transposed with the
 * full network (unpack, shuffle, two rounds of 128-bit lane shuffles), its
 * rows stored under a mask. Transpose (AVX2): pairs of 8 x 8 tiles (unpack,
 * shuffle, vperm2f128) so each row of B gets one 64-byte run, a single 8 x 8
 * tile, and the edges element by element. Non-temporal stores where the
 * description says stream, then a store fence.
 */
#include <string.h>

#include "exact/jit_x86.h"
#include "exact/unary_jit.h"
#include "sketchmm/unary.h"

enum {
    R_A = X86_RDI,     /* A (the block's first element for a transpose) */
    R_B = X86_RSI,     /* B */
    R_ROWS = X86_RDX,  /* copy: rows left */
    R_COUNT = X86_RCX, /* inner loops */
    R_WA = X86_R8,     /* walks along a row of A or down a column */
    R_WB = X86_R9
};

#define POOL_MASK 0 /* AVX2: the tail mask of a copy */
#define CODE_START 64
#define AVX512_ZERO 31
#define AVX2_ZERO 15
#define AVX2_MASK 14

typedef struct {
    jit_buf *b;
    const unary_jit_desc *d;
    int avx512, relu, zero_op;
    int vl;         /* floats per vector */
    x86_width w;    /* its width */
    int zreg;       /* a register holding zeros (copies) */
    int64_t stack;  /* AVX2 transposes: bytes of stack for spilled rows */
} gen;

static void add_imm(gen *g, int reg, int64_t v)
{
    if (v == 0)
        return;
    if (v < INT32_MIN || v > INT32_MAX) {
        g->b->failed = 1;
        return;
    }
    x86_alu_ri(g->b, X86_ADD, reg, (int32_t)v);
}

/* ReLU of register x in place: max(0, x) with the zero first. */
static void relu(gen *g, x86_width w, int x, int zero)
{
    x86_vrr(g->b, X86_VMAXPS, w, x, zero, x, 0, 0, -1);
}

/* kmovw k, imm (through eax). */
static void set_mask(gen *g, int k, unsigned bits)
{
    x86_mov_ri(g->b, X86_RAX, (int64_t)bits);
    x86_kmovw(g->b, k, X86_RAX);
}

/* ---- copies ---- */

/* One whole vector of a row: B[off] = op(A[off]) through register x. */
static void copy_vector(gen *g, int a, int b, int64_t off, int x)
{
    int src = g->zreg;
    if (!g->zero_op) {
        x86_vrm(g->b, X86_VMOVUPS_LOAD, g->w, x, 0, x86_m(a, off), 0, 0, 0, -1);
        if (g->relu)
            relu(g, g->w, x, g->zreg);
        src = x;
    }
    x86_vrm(g->b, g->d->stream ? X86_VMOVNTPS : X86_VMOVUPS_STORE, g->w, src, 0, x86_m(b, off), 0, 0, 0, -1);
}

/* The last cols % vl floats of a row, under the mask (k1, or AVX2_MASK). */
static void copy_tail(gen *g, int a, int b, int64_t off)
{
    const int x = 0;
    int src = g->zreg;
    if (!g->zero_op) {
        if (g->avx512)
            x86_vrm(g->b, X86_VMOVUPS_LOAD, g->w, x, 0, x86_m(a, off), 1, 1, 0, -1);
        else
            x86_vrm(g->b, X86_VMASKMOVPS_LOAD, g->w, x, AVX2_MASK, x86_m(a, off), 0, 0, 0, -1);
        if (g->relu)
            relu(g, g->w, x, g->zreg);
        src = x;
    }
    if (g->avx512)
        x86_vrm(g->b, X86_VMOVUPS_STORE, g->w, src, 0, x86_m(b, off), 1, 0, 0, -1);
    else
        x86_vrm(g->b, X86_VMASKMOVPS_STORE, g->w, src, AVX2_MASK, x86_m(b, off), 0, 0, 0, -1);
}

static void copy_row(gen *g)
{
    const int64_t cols = g->d->cols, full = cols / g->vl, bytes = 4 * g->vl;
    int a = R_A, b = R_B;
    int64_t done = 0;
    if (full > 32) { /* long rows: four vectors per iteration */
        x86_mov_rr(g->b, R_WA, R_A);
        x86_mov_rr(g->b, R_WB, R_B);
        x86_mov_ri(g->b, R_COUNT, full / 4);
        const size_t top = g->b->len;
        for (int i = 0; i < 4; i++)
            copy_vector(g, R_WA, R_WB, i * bytes, i);
        if (!g->zero_op)
            add_imm(g, R_WA, 4 * bytes);
        add_imm(g, R_WB, 4 * bytes);
        x86_dec(g->b, R_COUNT);
        x86_jcc_to(g->b, X86_JNE, top);
        a = R_WA;
        b = R_WB;
        done = full / 4 * 4;
    }
    int64_t off = 0;
    for (int64_t i = done; i < full; i++, off += bytes)
        copy_vector(g, a, b, off, (int)(i % 8));
    if (cols % g->vl != 0)
        copy_tail(g, a, b, off);
}

static void write_copy(gen *g, jit_entries *entries)
{
    const unary_jit_desc *d = g->d;
    const int64_t tail = d->cols % g->vl;
    if (!g->avx512) {
        for (int i = 0; i < 8; i++)
            jit_emit32(g->b, i < tail ? 0xFFFFFFFFu : 0u);
    }
    jit_align(g->b, CODE_START, 0xCC);
    entries->at[0] = g->b->len;
    entries->count = 1;
    if (g->relu || g->zero_op)
        x86_vrr(g->b, X86_VXORPS, X86_XMM, g->zreg, g->zreg, g->zreg, 0, 0, -1);
    if (tail != 0) {
        if (g->avx512)
            set_mask(g, 1, (1u << tail) - 1u);
        else
            x86_vrm(g->b, X86_VMOVUPS_LOAD, X86_YMM, AVX2_MASK, 0, x86_rip(POOL_MASK), 0, 0, 0, -1);
    }
    const size_t top = g->b->len;
    copy_row(g);
    if (!g->zero_op)
        add_imm(g, R_A, d->lda * 4);
    add_imm(g, R_B, d->ldb * 4);
    x86_dec(g->b, R_ROWS);
    x86_jcc_to(g->b, X86_JNE, top);
    if (d->stream)
        x86_sfence(g->b);
    x86_vzeroupper(g->b);
    x86_ret(g->b);
}

/* ---- AVX-512 transposes ---- */

/* A full 16 x 16 tile at A (R_A) and B (R_B): four quarters of 4 output rows each. */
static void tile16_full(gen *g)
{
    const unary_jit_desc *d = g->d;
    for (int q = 0; q < 4; q++) {
        for (int i = 0; i < 4; i++) {
            const int64_t at = (int64_t)i * d->lda * 4 + 16 * q;
            x86_vrm(g->b, X86_VMOVUPS_LOAD, X86_XMM, i, 0, x86_m(R_A, at), 0, 0, 0, -1);
            for (int lane = 1; lane < 4; lane++)
                x86_vrm(g->b, X86_VINSERTF32X4, X86_ZMM, i, i, x86_m(R_A, at + (int64_t)4 * lane * d->lda * 4), 0, 0,
                        0, lane);
            if (g->relu)
                relu(g, X86_ZMM, i, AVX512_ZERO);
        }
        x86_vrr(g->b, X86_VUNPCKLPS, X86_ZMM, 4, 0, 1, 0, 0, -1);
        x86_vrr(g->b, X86_VUNPCKHPS, X86_ZMM, 5, 0, 1, 0, 0, -1);
        x86_vrr(g->b, X86_VUNPCKLPS, X86_ZMM, 6, 2, 3, 0, 0, -1);
        x86_vrr(g->b, X86_VUNPCKHPS, X86_ZMM, 7, 2, 3, 0, 0, -1);
        x86_vrr(g->b, X86_VSHUFPS, X86_ZMM, 8, 4, 6, 0, 0, 0x44);
        x86_vrr(g->b, X86_VSHUFPS, X86_ZMM, 9, 4, 6, 0, 0, 0xEE);
        x86_vrr(g->b, X86_VSHUFPS, X86_ZMM, 10, 5, 7, 0, 0, 0x44);
        x86_vrr(g->b, X86_VSHUFPS, X86_ZMM, 11, 5, 7, 0, 0, 0xEE);
        for (int k = 0; k < 4; k++)
            x86_vrm(g->b, d->stream ? X86_VMOVNTPS : X86_VMOVUPS_STORE, X86_ZMM, 8 + k, 0,
                    x86_m(R_B, (int64_t)(4 * q + k) * d->ldb * 4), 0, 0, 0, -1);
    }
}

/*
 * An edge tile: ni lines of A (<= 16), nk elements of each (<= 16), under
 * masks k1 (nk lanes) and k2 (ni lanes). Stages alternate between the
 * register banks 0-15 and 16-31: rows, pairs, quads, lane shuffles, columns.
 */
static void tile16_edge(gen *g, int ni, int nk)
{
    const unary_jit_desc *d = g->d;
    jit_buf *b = g->b;
    if (nk < 16)
        set_mask(g, 1, (1u << nk) - 1u);
    if (ni < 16)
        set_mask(g, 2, (1u << ni) - 1u);
    for (int i = 0; i < 16; i++) {
        if (i >= ni)
            x86_vrr(b, X86_VXORPS, X86_XMM, i, i, i, 0, 0, -1);
        else if (nk == 16)
            x86_vrm(b, X86_VMOVUPS_LOAD, X86_ZMM, i, 0, x86_m(R_A, (int64_t)i * d->lda * 4), 0, 0, 0, -1);
        else
            x86_vrm(b, X86_VMOVUPS_LOAD, X86_ZMM, i, 0, x86_m(R_A, (int64_t)i * d->lda * 4), 1, 1, 0, -1);
    }
    if (g->relu) {
        x86_vrr(b, X86_VXORPS, X86_XMM, AVX512_ZERO, AVX512_ZERO, AVX512_ZERO, 0, 0, -1);
        for (int i = 0; i < ni; i++)
            relu(g, X86_ZMM, i, AVX512_ZERO);
    }
    for (int p = 0; p < 8; p++) { /* t[2p], t[2p + 1] in 16.. */
        x86_vrr(b, X86_VUNPCKLPS, X86_ZMM, 16 + 2 * p, 2 * p, 2 * p + 1, 0, 0, -1);
        x86_vrr(b, X86_VUNPCKHPS, X86_ZMM, 17 + 2 * p, 2 * p, 2 * p + 1, 0, 0, -1);
    }
    for (int q = 0; q < 4; q++) { /* u[4q .. 4q + 3] in 0.. */
        x86_vrr(b, X86_VSHUFPS, X86_ZMM, 4 * q, 16 + 4 * q, 18 + 4 * q, 0, 0, 0x44);
        x86_vrr(b, X86_VSHUFPS, X86_ZMM, 4 * q + 1, 16 + 4 * q, 18 + 4 * q, 0, 0, 0xEE);
        x86_vrr(b, X86_VSHUFPS, X86_ZMM, 4 * q + 2, 17 + 4 * q, 19 + 4 * q, 0, 0, 0x44);
        x86_vrr(b, X86_VSHUFPS, X86_ZMM, 4 * q + 3, 17 + 4 * q, 19 + 4 * q, 0, 0, 0xEE);
    }
    for (int k = 0; k < 4; k++) { /* v[..] in 16.. */
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, 16 + k, k, 4 + k, 0, 0, 0x88);
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, 20 + k, k, 4 + k, 0, 0, 0xDD);
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, 24 + k, 8 + k, 12 + k, 0, 0, 0x88);
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, 28 + k, 8 + k, 12 + k, 0, 0, 0xDD);
    }
    for (int k = 0; k < 4; k++) { /* columns in 0.. */
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, k, 16 + k, 24 + k, 0, 0, 0x88);
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, 8 + k, 16 + k, 24 + k, 0, 0, 0xDD);
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, 4 + k, 20 + k, 28 + k, 0, 0, 0x88);
        x86_vrr(b, X86_VSHUFF32X4, X86_ZMM, 12 + k, 20 + k, 28 + k, 0, 0, 0xDD);
    }
    for (int k = 0; k < nk; k++) {
        const x86_mem m = x86_m(R_B, (int64_t)k * d->ldb * 4);
        if (ni == 16 && nk == 16)
            x86_vrm(b, d->stream ? X86_VMOVNTPS : X86_VMOVUPS_STORE, X86_ZMM, k, 0, m, 0, 0, 0, -1);
        else
            x86_vrm(b, X86_VMOVUPS_STORE, X86_ZMM, k, 0, m, ni < 16 ? 2 : 0, 0, 0, -1);
    }
}

static void block_avx512(gen *g, int64_t nr, int64_t nc)
{
    const int64_t tiles = nr / 16, nk = nr % 16;
    if (g->relu)
        x86_vrr(g->b, X86_VXORPS, X86_XMM, AVX512_ZERO, AVX512_ZERO, AVX512_ZERO, 0, 0, -1);
    if (tiles > 0) {
        if (tiles > 1)
            x86_mov_ri(g->b, R_COUNT, tiles);
        const size_t top = g->b->len;
        if (nc == 16)
            tile16_full(g);
        else
            tile16_edge(g, (int)nc, 16);
        add_imm(g, R_A, 64);
        add_imm(g, R_B, 16 * g->d->ldb * 4);
        if (tiles > 1) {
            x86_dec(g->b, R_COUNT);
            x86_jcc_to(g->b, X86_JNE, top);
        }
    }
    if (nk > 0)
        tile16_edge(g, (int)nc, (int)nk);
}

/* ---- AVX2 transposes ---- */

/*
 * out[k] (registers 8 + k) lane i = op(a[i * lda + k]) for the 8 x 8 tile at
 * [R_A + off]: rows in 0-7, pairs in 8-15, quads in 0-7, columns in 8-15.
 */
static void tile8(gen *g, int64_t off)
{
    const unary_jit_desc *d = g->d;
    jit_buf *b = g->b;
    for (int i = 0; i < 8; i++)
        x86_vrm(b, X86_VMOVUPS_LOAD, X86_YMM, i, 0, x86_m(R_A, off + (int64_t)i * d->lda * 4), 0, 0, 0, -1);
    if (g->relu) {
        x86_vrr(b, X86_VXORPS, X86_XMM, AVX2_ZERO, AVX2_ZERO, AVX2_ZERO, 0, 0, -1);
        for (int i = 0; i < 8; i++)
            relu(g, X86_YMM, i, AVX2_ZERO);
    }
    for (int p = 0; p < 4; p++) {
        x86_vrr(b, X86_VUNPCKLPS, X86_YMM, 8 + 2 * p, 2 * p, 2 * p + 1, 0, 0, -1);
        x86_vrr(b, X86_VUNPCKHPS, X86_YMM, 9 + 2 * p, 2 * p, 2 * p + 1, 0, 0, -1);
    }
    for (int h = 0; h < 2; h++) {
        const int t = 8 + 4 * h, u = 4 * h;
        x86_vrr(b, X86_VSHUFPS, X86_YMM, u, t, t + 2, 0, 0, 0x44);
        x86_vrr(b, X86_VSHUFPS, X86_YMM, u + 1, t, t + 2, 0, 0, 0xEE);
        x86_vrr(b, X86_VSHUFPS, X86_YMM, u + 2, t + 1, t + 3, 0, 0, 0x44);
        x86_vrr(b, X86_VSHUFPS, X86_YMM, u + 3, t + 1, t + 3, 0, 0, 0xEE);
    }
    for (int k = 0; k < 4; k++) {
        x86_vrr(b, X86_VPERM2F128, X86_YMM, 8 + k, k, 4 + k, 0, 0, 0x20);
        x86_vrr(b, X86_VPERM2F128, X86_YMM, 12 + k, k, 4 + k, 0, 0, 0x31);
    }
}

/* One element: B[boff] = op(A[aoff]) from bases a and b. */
static void element(gen *g, int a, int64_t aoff, int b, int64_t boff)
{
    x86_vrm(g->b, X86_VMOVSS_LOAD, X86_XMM, 0, 0, x86_m(a, aoff), 0, 0, 0, -1);
    if (g->relu)
        relu(g, X86_XMM, 0, AVX2_ZERO);
    x86_vrm(g->b, X86_VMOVSS_STORE, X86_XMM, 0, 0, x86_m(b, boff), 0, 0, 0, -1);
}

static void block_avx2(gen *g, int64_t nr, int64_t nc)
{
    const unary_jit_desc *d = g->d;
    jit_buf *b = g->b;
    const int64_t rf = nr / 8, cf = nc / 8 * 8, ldb4 = d->ldb * 4;
    if (rf > 0 && cf > 0) {
        x86_mov_rr(b, R_WA, R_A);
        x86_mov_rr(b, R_WB, R_B);
        if (rf > 1)
            x86_mov_ri(b, R_COUNT, rf);
        const size_t top = b->len;
        x86_mov_rr(b, R_A, R_WA);
        if (cf == 16) {
            /* the left tile's columns wait on the stack while the right tile is made: each row of B then
               gets its two halves one after the other (whole 64-byte lines for non-temporal stores) */
            tile8(g, 0);
            for (int k = 0; k < 8; k++)
                x86_vrm(b, X86_VMOVUPS_STORE, X86_YMM, 8 + k, 0, x86_m(X86_RSP, 32 * k), 0, 0, 0, -1);
            tile8(g, 8 * d->lda * 4);
            for (int k = 0; k < 8; k++) {
                x86_vrm(b, X86_VMOVUPS_LOAD, X86_YMM, 0, 0, x86_m(X86_RSP, 32 * k), 0, 0, 0, -1);
                const x86_vop st = d->stream ? X86_VMOVNTPS : X86_VMOVUPS_STORE;
                x86_vrm(b, st, X86_YMM, 0, 0, x86_m(R_WB, k * ldb4), 0, 0, 0, -1);
                x86_vrm(b, st, X86_YMM, 8 + k, 0, x86_m(R_WB, k * ldb4 + 32), 0, 0, 0, -1);
            }
        } else {
            tile8(g, 0);
            for (int k = 0; k < 8; k++)
                x86_vrm(b, X86_VMOVUPS_STORE, X86_YMM, 8 + k, 0, x86_m(R_WB, k * ldb4), 0, 0, 0, -1);
        }
        add_imm(g, R_WA, 32);
        add_imm(g, R_WB, 8 * ldb4);
        if (rf > 1) {
            x86_dec(b, R_COUNT);
            x86_jcc_to(b, X86_JNE, top);
        }
        x86_mov_rr(b, R_A, R_WA); /* back to the block's start: rf tiles of 8 floats were walked */
        add_imm(g, R_A, -rf * 32);
        if (d->stream)
            x86_sfence(b);
    }
    if (g->relu)
        x86_vrr(b, X86_VXORPS, X86_XMM, AVX2_ZERO, AVX2_ZERO, AVX2_ZERO, 0, 0, -1);
    if (cf < nc) { /* the last nc - cf lines of A, every row: a loop down the rows */
        x86_mov_rr(b, R_WA, R_A);
        x86_mov_rr(b, R_WB, R_B);
        x86_mov_ri(b, R_COUNT, nr);
        const size_t top = b->len;
        for (int64_t c = cf; c < nc; c++)
            element(g, R_WA, c * d->lda * 4, R_WB, c * 4);
        add_imm(g, R_WA, 4);
        add_imm(g, R_WB, ldb4);
        x86_dec(b, R_COUNT);
        x86_jcc_to(b, X86_JNE, top);
    }
    for (int64_t r = rf * 8; r < nr; r++) /* the last nr % 8 rows, the first cf columns */
        for (int64_t c = 0; c < cf; c++)
            element(g, R_A, c * d->lda * 4 + r * 4, R_B, r * ldb4 + c * 4);
}

static void write_transpose(gen *g, jit_entries *entries)
{
    int64_t shape[4][2];
    int written_as[4];
    unary_jit_blocks(g->d, shape, written_as);
    jit_align(g->b, CODE_START, 0xCC);
    entries->count = 4;
    for (int e = 0; e < 4; e++) {
        if (written_as[e] != e) {
            entries->at[e] = entries->at[written_as[e]];
            continue;
        }
        jit_align(g->b, 16, 0xCC);
        entries->at[e] = g->b->len;
        if (!g->avx512) {
            x86_alu_ri(g->b, X86_SUB, X86_RSP, 256 + 8);
            block_avx2(g, shape[e][0], shape[e][1]);
            x86_alu_ri(g->b, X86_ADD, X86_RSP, 256 + 8);
        } else {
            block_avx512(g, shape[e][0], shape[e][1]);
        }
        x86_vzeroupper(g->b);
        x86_ret(g->b);
    }
}

int unary_jit_write_x86(const void *key, jit_buf *b, jit_entries *entries)
{
    const unary_jit_desc *d = key;
    if ((d->isa != SMM_ISA_AVX512 && d->isa != SMM_ISA_AVX2) || !unary_jit_valid(d))
        return 0;
    gen g;
    memset(&g, 0, sizeof g);
    g.b = b;
    g.d = d;
    g.avx512 = d->isa == SMM_ISA_AVX512;
    g.relu = d->op == UNARY_RELU;
    g.zero_op = d->op == UNARY_ZERO;
    g.vl = g.avx512 ? 16 : 8;
    g.w = g.avx512 ? X86_ZMM : X86_YMM;
    g.zreg = g.avx512 ? AVX512_ZERO : AVX2_ZERO;
    if (d->transpose)
        write_transpose(&g, entries);
    else
        write_copy(&g, entries);
    return !b->failed;
}
