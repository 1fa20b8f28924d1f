/*
 * brgemm_jit_x86.c - the BRGEMM kernel writer for x86-64 (AVX-512 and AVX2
 * with FMA): machine code for one description (brgemm_jit.h).
 *
 * Shape of the code. The m rows of C are cut into bands (64 rows with
 * AVX-512, 16 with AVX2) and each band's rows into pieces, one vector
 * register each: full vectors (16 or 8 floats), then the remaining rows in
 * the narrowest vector that holds them (xmm for 1-4 rows, ymm for 5-8, zmm
 * for 9-15). On cores that run two 256-bit or 128-bit FMAs per cycle for
 * one 512-bit FMA (AMD Zen 4), a narrow piece costs half a full one, so 8
 * rows run at full rate and 4 rows at half, where a zmm would waste 8 or 12
 * of its 16 lanes; elsewhere it costs the same. A partial piece is loaded
 * under a mask (an opmask with AVX-512, vmaskmovps with AVX2, whose masked
 * lanes never fault) and written as exact pieces of 8, 4, 2 and 1 floats.
 * Each band's n columns are cut into blocks of nb columns, as even as the
 * register file allows (mv pieces x nb accumulators, plus the pieces of A
 * and temporaries: 32 zmm, or 16 ymm with one broadcast register).
 *
 * Per (band, block), a tile: accumulators zeroed, then for each batch entry
 * the k steps, each loading the pieces of A's column p and, per column j,
 * multiplying them by B_i(p, j) (an embedded {1toN} broadcast with AVX-512,
 * vbroadcastss with AVX2) into the accumulators; k is unrolled (fully when
 * short), every operand address a base register plus a constant
 * displacement. Then C is updated once. Blocks of the same width run in a
 * loop, as do bands; a product of one tile needs no callee-saved register.
 * Both entry points (strided, pointers) are written, from the same walk.
 *
 * General registers (System V: rdi, rsi, rdx, rcx are the arguments):
 */
#include <string.h>

#include "exact/brgemm_jit.h"
#include "exact/jit_x86.h"
#include "sketchmm/common.h"

enum {
    R_A = X86_RDI,       /* A, or the array of A_i */
    R_B = X86_RSI,       /* B, or the array of B_i */
    R_C = X86_RDX,       /* C */
    R_BATCH = X86_RCX,   /* batch count */
    R_KA = X86_R8,       /* A_i at the current step of a k loop */
    R_KB = X86_R9,       /* B_i likewise */
    R_AI = X86_R10,      /* strided: A_i of the tile; pointers: the walk over the array of A_i */
    R_BI = X86_R11,      /* likewise for B */
    R_KCOUNT = X86_RAX,  /* k-loop iterations left */
    R_ICOUNT = X86_RBX,  /* batch entries left (several tiles; else R_BATCH itself) */
    R_BOFF = X86_RBP,    /* bytes from B_i to the block's first column */
    R_CT = X86_R12,      /* C of the tile */
    R_JCOUNT = X86_R13,  /* blocks left */
    R_AOFF = X86_R14,    /* bytes from A_i (and C) to the band's first row */
    R_BANDS = X86_R15    /* bands left */
};

/* The constant pool before the code: alpha, beta, and (AVX2) the lane mask of a partial piece. */
#define POOL_ALPHA 0
#define POOL_BETA 4
#define POOL_MASK 32
#define CODE_START 64

#define MAX_PIECES 4
#define AVX2_MASK_REG 15

enum { UPDATE_SET, UPDATE_ADD, UPDATE_GENERAL };

/* Rows off .. off + live - 1 of a band, in one register of `width` lanes (4, 8 or 16). */
typedef struct {
    int off, width, live;
} piece;

/* A band of rows: its pieces and how its columns are cut. */
typedef struct {
    int rows, npieces;
    piece p[MAX_PIECES];
    int64_t nb_hi, blocks_hi; /* blocks_hi blocks of nb_hi columns, then */
    int64_t nb_lo, blocks_lo; /* blocks_lo blocks of nb_lo = nb_hi - 1 columns */
} band_shape;

typedef struct {
    jit_buf *b;
    const brgemm_jit_desc *d;
    int avx512;
    int vl, band_rows;
    float alpha, beta;
    int mode;
    int64_t bands;          /* in all; the last is `last`, the others `full` */
    band_shape full, last;
    int multi_tile;         /* more than one tile: the batch count is copied per tile */
    int use_aoff, use_boff; /* registers R_AOFF, R_BOFF (and R_CT) in use */
    int use_bands, use_blocks;
    int partial;            /* some piece is loaded under a mask (set up at entry) */
} gen;

static x86_width width_of(int lanes)
{
    return lanes == 16 ? X86_ZMM : lanes == 8 ? X86_YMM : X86_XMM;
}

static int fits32(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

/* reg += v (nothing for 0; a value beyond 32 bits marks the buffer failed: no kernel). */
static void add_imm(gen *g, int reg, int64_t v)
{
    if (v == 0)
        return;
    if (!fits32(v)) {
        g->b->failed = 1;
        return;
    }
    x86_alu_ri(g->b, X86_ADD, reg, (int32_t)v);
}

/* Vector registers the update of C needs besides the accumulators (free again once the k steps are done). */
#define TEMPS 3

/*
 * The most columns a tile of mv pieces may have: mv * nb accumulators, and
 * besides them the mv pieces of A during the k steps (AVX2: and a broadcast
 * register, and the lane mask throughout when a piece is partial), TEMPS
 * in the update.
 */
static int nb_max_of(const gen *g, int mv, int partial)
{
    if (g->avx512)
        return (32 - (mv > TEMPS ? mv : TEMPS)) / mv;
    const int regs = 16 - (partial ? 1 : 0);
    const int during = mv + 1 > TEMPS ? mv + 1 : TEMPS;
    return (regs - during) / mv;
}

static void shape_band(gen *g, int rows, band_shape *s)
{
    memset(s, 0, sizeof *s);
    s->rows = rows;
    const int full = rows / g->vl, rest = rows % g->vl;
    for (int i = 0; i < full; i++) {
        const piece p = { i * g->vl, g->vl, g->vl };
        s->p[s->npieces++] = p;
    }
    if (rest > 0) {
        const int width = rest > 8 ? 16 : rest > 4 ? 8 : 4;
        const piece p = { full * g->vl, width, rest };
        s->p[s->npieces++] = p;
    }
    const int64_t nb_max = nb_max_of(g, s->npieces, rest > 2);
    const int64_t n = g->d->n, blocks = (n + nb_max - 1) / nb_max;
    s->nb_lo = n / blocks;
    s->blocks_hi = n % blocks;
    s->nb_hi = s->nb_lo + 1;
    s->blocks_lo = blocks - s->blocks_hi;
}

/* ---- the k steps ---- */

static int acc_reg(int nb, int v, int j)
{
    return v * nb + j;
}

/* Whether piece p is loaded under a mask (1 and 2 floats have loads of their own). */
static int masked(const piece *p)
{
    return p->live < p->width && p->live > 2;
}

/* Load piece v of A's column (address m) into register r. */
static void load_a(gen *g, const piece *p, int r, x86_mem m)
{
    const x86_width w = width_of(p->width);
    if (p->live == p->width)
        x86_vrm(g->b, X86_VMOVUPS_LOAD, w, r, 0, m, 0, 0, 0, -1);
    else if (p->live <= 2)
        x86_vrm(g->b, p->live == 1 ? X86_VMOVSS_LOAD : X86_VMOVSD_LOAD, X86_XMM, r, 0, m, 0, 0, 0, -1);
    else if (g->avx512)
        x86_vrm(g->b, X86_VMOVUPS_LOAD, w, r, 0, m, 1, 1, 0, -1);
    else
        x86_vrm(g->b, X86_VMASKMOVPS_LOAD, w, r, AVX2_MASK_REG, m, 0, 0, 0, -1);
}

/* Step p of the k walk from A_i at abase and B_i at bbase (displacements from them). */
static void step(gen *g, const band_shape *s, int nb, int64_t p, int abase, int bbase)
{
    const brgemm_jit_desc *d = g->d;
    const int mv = s->npieces, a0 = mv * nb;
    for (int v = 0; v < mv; v++)
        load_a(g, &s->p[v], a0 + v, x86_m(abase, ((int64_t)s->p[v].off + p * d->lda) * 4));
    for (int j = 0; j < nb; j++) {
        const x86_mem bm = x86_m(bbase, (p * d->b_step + (int64_t)j * d->b_col) * 4);
        if (g->avx512) {
            for (int v = 0; v < mv; v++)
                x86_vrm(g->b, X86_VFMADD231PS, width_of(s->p[v].width), acc_reg(nb, v, j), a0 + v, bm, 0, 0, 1, -1);
        } else {
            const int bc = a0 + mv;
            x86_vrm(g->b, X86_VBROADCASTSS, width_of(s->p[0].width), bc, 0, bm, 0, 0, 0, -1);
            for (int v = 0; v < mv; v++)
                x86_vrr(g->b, X86_VFMADD231PS, width_of(s->p[v].width), acc_reg(nb, v, j), a0 + v, bc, 0, 0, -1);
        }
    }
}

/* Instructions of one k step. */
static int step_size(const gen *g, const band_shape *s, int nb)
{
    return s->npieces * (nb + 1) + (g->avx512 ? 0 : nb);
}

/* Steps per k-loop iteration: about 128 instructions, at most 8. */
static int64_t unroll_of(const gen *g, const band_shape *s, int nb)
{
    const int u = 128 / step_size(g, s, nb);
    return u < 1 ? 1 : u > 8 ? 8 : u;
}

/* Whether the k steps loop (else they are unrolled whole: a short walk, at most 256 instructions). */
static int k_loops(const gen *g, const band_shape *s, int nb)
{
    return g->d->k > unroll_of(g, s, nb) && g->d->k * step_size(g, s, nb) > 256;
}

/*
 * The k steps of one batch entry. Short walks are unrolled whole from abase
 * and bbase; longer ones loop (abase and bbase must then be R_KA and R_KB,
 * which the loop advances).
 */
static void k_steps(gen *g, const band_shape *s, int nb, int abase, int bbase)
{
    const brgemm_jit_desc *d = g->d;
    const int64_t u = unroll_of(g, s, nb);
    if (!k_loops(g, s, nb)) {
        for (int64_t p = 0; p < d->k; p++)
            step(g, s, nb, p, abase, bbase);
        return;
    }
    const int64_t loops = d->k / u, rest = d->k % u;
    x86_mov_ri(g->b, R_KCOUNT, loops);
    const size_t top = g->b->len;
    for (int64_t p = 0; p < u; p++)
        step(g, s, nb, p, abase, bbase);
    add_imm(g, abase, u * d->lda * 4);
    add_imm(g, bbase, u * d->b_step * 4);
    x86_dec(g->b, R_KCOUNT);
    x86_jcc_to(g->b, X86_JNE, top);
    for (int64_t p = 0; p < rest; p++)
        step(g, s, nb, p, abase, bbase);
}

/* ---- the update of C ---- */

/* The memory view of s floats (8, 4, 2 or 1) at m: vmovups ymm / xmm, vmovsd, vmovss. */
static void move_piece(gen *g, int store, int s, int r, x86_mem m)
{
    x86_vop op;
    x86_width w = X86_XMM;
    if (s >= 4) {
        op = store ? X86_VMOVUPS_STORE : X86_VMOVUPS_LOAD;
        w = s == 8 ? X86_YMM : X86_XMM;
    } else if (s == 2) {
        op = store ? X86_VMOVSD_STORE : X86_VMOVSD_LOAD;
    } else {
        op = store ? X86_VMOVSS_STORE : X86_VMOVSS_LOAD;
    }
    x86_vrm(g->b, op, w, r, 0, m, 0, 0, 0, -1);
}

/*
 * Lanes o .. o + s - 1 of register x (width lanes) into the low lanes of a
 * register: x itself when o == 0, else t. o is a multiple of 2 s (pieces
 * come in descending sizes), so the lanes sit at 0 or 2 of a 128-bit chunk.
 */
static int lanes_down(gen *g, int x, int width, int o, int s, int t)
{
    if (o == 0)
        return x;
    if (s == 8) { /* o == 8: the upper half of a zmm */
        x86_vrr(g->b, X86_VEXTRACTF32X8, X86_ZMM, x, 0, t, 0, 0, 1);
        return t;
    }
    int src = x;
    if (o >= 4) {
        if (g->avx512)
            x86_vrr(g->b, X86_VEXTRACTF32X4, width_of(width), x, 0, t, 0, 0, o / 4);
        else
            x86_vrr(g->b, X86_VEXTRACTF128, X86_YMM, x, 0, t, 0, 0, o / 4);
        src = t;
    }
    if (o % 4 == 2) {
        x86_vrr(g->b, X86_VMOVHLPS, X86_XMM, t, src, src, 0, 0, -1);
        src = t;
    }
    return src;
}

/* One piece of one column: accumulator x (alpha applied) into C at m. t, u: temporaries; tb: beta (AVX2, GENERAL). */
static void update_piece(gen *g, const piece *p, int x, x86_mem m, int t, int u, int tb)
{
    const x86_width w = width_of(p->width);
    const int general = g->mode == UPDATE_GENERAL && g->beta != 1.0f;
    const int add = g->mode == UPDATE_ADD || (g->mode == UPDATE_GENERAL && g->beta == 1.0f);
    if (p->live == p->width) {
        if (add) {
            x86_vrm(g->b, X86_VADDPS, w, x, x, m, 0, 0, 0, -1);
        } else if (general) {
            x86_vrm(g->b, X86_VFMADD231PS, w, x, tb, m, 0, 0, 0, -1); /* x = beta * c + x */
        }
        x86_vrm(g->b, X86_VMOVUPS_STORE, w, x, 0, m, 0, 0, 0, -1);
        return;
    }
    int o = 0;
    for (int s = 8; s >= 1; s /= 2) {
        if (!(p->live & s))
            continue;
        const x86_mem at = x86_m(m.base, m.disp + 4 * o);
        int r = lanes_down(g, x, p->width, o, s, t);
        const x86_width ws = s == 8 ? X86_YMM : X86_XMM;
        if (add) {
            move_piece(g, 0, s, u, at);
            x86_vrr(g->b, X86_VADDPS, ws, u, u, r, 0, 0, -1); /* c + acc */
            r = u;
        } else if (general) {
            move_piece(g, 0, s, u, at);
            if (r == x) { /* never write x through a narrow view: its upper lanes are still to come */
                x86_vrr(g->b, X86_VMOVUPS_LOAD, ws, t, 0, x, 0, 0, -1);
                r = t;
            }
            x86_vrr(g->b, X86_VFMADD231PS, ws, r, tb, u, 0, 0, -1); /* r = beta * c + r */
        }
        move_piece(g, 1, s, r, at);
        o += s;
    }
}

static void update_c(gen *g, const band_shape *s, int nb, int cbase)
{
    const brgemm_jit_desc *d = g->d;
    const int mv = s->npieces, t = mv * nb, u = t + 1, tb = t + 2;
    if (g->mode != UPDATE_ADD && g->alpha != 1.0f) {
        if (!g->avx512)
            x86_vrm(g->b, X86_VBROADCASTSS, X86_YMM, tb, 0, x86_rip(POOL_ALPHA), 0, 0, 0, -1);
        for (int j = 0; j < nb; j++)
            for (int v = 0; v < mv; v++) {
                const x86_width w = width_of(s->p[v].width);
                if (g->avx512)
                    x86_vrm(g->b, X86_VMULPS, w, acc_reg(nb, v, j), acc_reg(nb, v, j), x86_rip(POOL_ALPHA), 0, 0, 1,
                            -1);
                else
                    x86_vrr(g->b, X86_VMULPS, w, acc_reg(nb, v, j), acc_reg(nb, v, j), tb, 0, 0, -1);
            }
    }
    if (g->mode == UPDATE_GENERAL && g->beta != 1.0f)
        x86_vrm(g->b, X86_VBROADCASTSS, g->avx512 ? X86_ZMM : X86_YMM, tb, 0, x86_rip(POOL_BETA), 0, 0, 0, -1);
    for (int j = 0; j < nb; j++)
        for (int v = 0; v < mv; v++)
            update_piece(g, &s->p[v], acc_reg(nb, v, j), x86_m(cbase, ((int64_t)s->p[v].off + j * d->ldc) * 4), t, u,
                         tb);
}

/* ---- tiles, blocks, bands ---- */

static void tile(gen *g, const band_shape *s, int nb, int kind)
{
    const brgemm_jit_desc *d = g->d;
    const int mv = s->npieces;
    for (int r = 0; r < mv * nb; r++)
        x86_vrr(g->b, X86_VXORPS, X86_XMM, r, r, r, 0, 0, -1);
    const int counter = g->multi_tile ? R_ICOUNT : R_BATCH;
    if (g->multi_tile)
        x86_mov_rr(g->b, counter, R_BATCH);
    /* the walkers over the batch: one tile may use the argument registers themselves */
    const int ai = g->multi_tile ? R_AI : R_A, bi = g->multi_tile ? R_BI : R_B;
    if (kind == BRGEMM_JIT_STRIDED) {
        if (g->use_aoff)
            x86_lea(g->b, ai, x86_mi(R_A, R_AOFF, 1, 0));
        else if (ai != R_A)
            x86_mov_rr(g->b, ai, R_A);
        if (g->use_boff)
            x86_lea(g->b, bi, x86_mi(R_B, R_BOFF, 1, 0));
        else if (bi != R_B)
            x86_mov_rr(g->b, bi, R_B);
    } else if (ai != R_A) {
        x86_mov_rr(g->b, ai, R_A);
        x86_mov_rr(g->b, bi, R_B);
    }
    const int loops = k_loops(g, s, nb);
    const size_t top = g->b->len;
    int abase = ai, bbase = bi;
    if (kind == BRGEMM_JIT_POINTERS) {
        x86_mov_rm(g->b, R_KA, x86_m(ai, 0));
        x86_mov_rm(g->b, R_KB, x86_m(bi, 0));
        if (g->use_aoff)
            x86_alu_rr(g->b, X86_ADD, R_KA, R_AOFF);
        if (g->use_boff)
            x86_alu_rr(g->b, X86_ADD, R_KB, R_BOFF);
        x86_alu_ri(g->b, X86_ADD, ai, 8);
        x86_alu_ri(g->b, X86_ADD, bi, 8);
        abase = R_KA;
        bbase = R_KB;
    } else if (loops) {
        x86_mov_rr(g->b, R_KA, ai);
        x86_mov_rr(g->b, R_KB, bi);
        abase = R_KA;
        bbase = R_KB;
    }
    k_steps(g, s, nb, abase, bbase);
    if (kind == BRGEMM_JIT_STRIDED) {
        add_imm(g, ai, d->stride_a * 4);
        add_imm(g, bi, d->stride_b * 4);
    }
    x86_dec(g->b, counter);
    x86_jcc_to(g->b, X86_JNE, top);
    update_c(g, s, nb, g->use_aoff || g->use_boff ? R_CT : R_C);
}

static void blocks_of(gen *g, const band_shape *s, int64_t nb, int64_t count, int kind)
{
    if (count == 0)
        return;
    size_t top = 0;
    if (count > 1) {
        x86_mov_ri(g->b, R_JCOUNT, count);
        top = g->b->len;
    }
    tile(g, s, (int)nb, kind);
    if (g->use_boff) {
        add_imm(g, R_BOFF, nb * g->d->b_col * 4);
        add_imm(g, R_CT, nb * g->d->ldc * 4);
    }
    if (count > 1) {
        x86_dec(g->b, R_JCOUNT);
        x86_jcc_to(g->b, X86_JNE, top);
    }
}

static void bands_of(gen *g, const band_shape *s, int64_t count, int kind)
{
    size_t top = 0;
    if (count > 1) {
        x86_mov_ri(g->b, R_BANDS, count);
        top = g->b->len;
    }
    if (g->use_boff)
        x86_mov_ri(g->b, R_BOFF, 0);
    if (g->use_aoff)
        x86_lea(g->b, R_CT, x86_mi(R_C, R_AOFF, 1, 0));
    else if (g->use_boff)
        x86_mov_rr(g->b, R_CT, R_C);
    blocks_of(g, s, s->nb_hi, s->blocks_hi, kind);
    blocks_of(g, s, s->nb_lo, s->blocks_lo, kind);
    if (g->use_aoff)
        add_imm(g, R_AOFF, (int64_t)s->rows * 4);
    if (count > 1) {
        x86_dec(g->b, R_BANDS);
        x86_jcc_to(g->b, X86_JNE, top);
    }
}

/* Callee-saved registers the code uses, in push order. */
static int saved_registers(const gen *g, int *regs)
{
    int n = 0;
    if (g->multi_tile)
        regs[n++] = R_ICOUNT;
    if (g->use_boff) {
        regs[n++] = R_BOFF;
        regs[n++] = R_CT;
    } else if (g->use_aoff) {
        regs[n++] = R_CT;
    }
    if (g->use_blocks)
        regs[n++] = R_JCOUNT;
    if (g->use_aoff)
        regs[n++] = R_AOFF;
    if (g->use_bands)
        regs[n++] = R_BANDS;
    return n;
}

static void body(gen *g, int kind)
{
    int saved[8];
    const int nsaved = saved_registers(g, saved);
    for (int i = 0; i < nsaved; i++)
        x86_push(g->b, saved[i]);
    if (g->partial) {
        if (g->avx512) {
            x86_mov_ri(g->b, X86_RAX, (int64_t)((1u << g->last.p[g->last.npieces - 1].live) - 1u));
            x86_kmovw(g->b, 1, X86_RAX);
        } else {
            x86_vrm(g->b, X86_VMOVUPS_LOAD, X86_YMM, AVX2_MASK_REG, 0, x86_rip(POOL_MASK), 0, 0, 0, -1);
        }
    }
    if (g->use_aoff)
        x86_mov_ri(g->b, R_AOFF, 0);
    if (g->bands > 1)
        bands_of(g, &g->full, g->bands - 1, kind);
    bands_of(g, &g->last, 1, kind);
    for (int i = nsaved - 1; i >= 0; i--)
        x86_pop(g->b, saved[i]);
    x86_vzeroupper(g->b);
    x86_zero(g->b, X86_RAX); /* returns SMM_OK */
    x86_ret(g->b);
}

int brgemm_jit_write_x86(const void *key, jit_buf *b, jit_entries *entries)
{
    const brgemm_jit_desc *d = key;
    if ((d->isa != SMM_ISA_AVX512 && d->isa != SMM_ISA_AVX2) || d->m < 1 || d->n < 1 || d->k < 1 ||
        !brgemm_jit_sizes_ok(d))
        return 0;
    gen g;
    memset(&g, 0, sizeof g);
    g.b = b;
    g.d = d;
    g.avx512 = d->isa == SMM_ISA_AVX512;
    g.vl = g.avx512 ? 16 : 8;
    g.band_rows = g.avx512 ? 64 : 16;
    memcpy(&g.alpha, &d->alpha_bits, sizeof g.alpha);
    memcpy(&g.beta, &d->beta_bits, sizeof g.beta);
    g.mode = g.beta == 0.0f ? UPDATE_SET : g.alpha == 1.0f && g.beta == 1.0f ? UPDATE_ADD : UPDATE_GENERAL;
    g.bands = (d->m + g.band_rows - 1) / g.band_rows;
    if (g.bands > 1)
        shape_band(&g, g.band_rows, &g.full);
    shape_band(&g, (int)(d->m - (g.bands - 1) * g.band_rows), &g.last);
    const int64_t blocks_full = g.bands > 1 ? g.full.blocks_hi + g.full.blocks_lo : 0;
    const int64_t blocks_last = g.last.blocks_hi + g.last.blocks_lo;
    g.use_aoff = g.bands > 1;
    g.use_boff = blocks_full > 1 || blocks_last > 1;
    g.use_bands = g.bands > 2;
    g.use_blocks = (g.bands > 1 && (g.full.blocks_hi > 1 || g.full.blocks_lo > 1)) || g.last.blocks_hi > 1 ||
                   g.last.blocks_lo > 1;
    g.multi_tile = g.bands > 1 || blocks_last > 1;
    const piece *tail = &g.last.p[g.last.npieces - 1];
    g.partial = masked(tail);

    /* the pool: alpha, beta, the AVX2 lane mask */
    jit_emit32(b, d->alpha_bits);
    jit_emit32(b, d->beta_bits);
    jit_align(b, POOL_MASK, 0);
    for (int i = 0; i < 8; i++)
        jit_emit32(b, i < tail->live ? 0xFFFFFFFFu : 0u);
    jit_align(b, CODE_START, 0xCC);
    entries->at[BRGEMM_JIT_STRIDED] = b->len;
    body(&g, BRGEMM_JIT_STRIDED);
    jit_align(b, 64, 0xCC);
    entries->at[BRGEMM_JIT_POINTERS] = b->len;
    body(&g, BRGEMM_JIT_POINTERS);
    entries->count = 2;
    return !b->failed;
}
