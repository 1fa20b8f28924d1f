/*
 * jit_a64.c - the AArch64 encoder of jit_a64.h: one table row per
 * instruction (its fixed bits, operand layout and immediate scale) and one
 * packer per layout (Arm ARM, section C4, "A64 instruction set encoding").
 */
#include "exact/jit_a64.h"

/* How a row's operands are packed into its word. */
typedef enum {
    LAYOUT_LS_UIMM,  /* Rt, Rn, imm12 (offset / scale) at 10 */
    LAYOUT_LS_SIMM9, /* Rt, Rn, imm9 at 12 */
    LAYOUT_LS_REG,   /* Rt, Rn, Rm at 16 */
    LAYOUT_LANE_S,   /* Rt, Rn, lane: Q (bit 30) : S (bit 12) */
    LAYOUT_RN_RT,    /* Rt, Rn */
    LAYOUT_RRR,      /* Rd, Rn, Rm at 16 */
    LAYOUT_ELEM_S,   /* Rd, Rn, Rm at 16 (bit 20 = M), lane: H (bit 11) : L (bit 21) */
    LAYOUT_RR,       /* Rd, Rn */
    LAYOUT_RD,       /* Rd */
    LAYOUT_ADDSUB,   /* Rd, Rn, imm12 at 10, shift 12 at bit 22 */
    LAYOUT_MOVW,     /* Rd, imm16 at 5, hw at 21 */
    LAYOUT_PAIR,     /* Rt, Rn, Rt2 at 10, imm7 (offset / 8) at 15 */
    LAYOUT_BR19,     /* cond or Rt, imm19 (words) at 5 */
    LAYOUT_ADR,      /* Rd, immlo at 29, immhi at 5 (bytes) */
    LAYOUT_NONE
} layout;

typedef struct {
    const char *name;
    uint32_t base;
    uint8_t layout;
    uint8_t scale; /* bytes per unit of an unsigned offset */
} a64_row;

static const a64_row rows[A64_OP_COUNT] = {
    [A64_LDR_S] = { "ldr", 0xBD400000u, LAYOUT_LS_UIMM, 4 },
    [A64_LDR_D] = { "ldr", 0xFD400000u, LAYOUT_LS_UIMM, 8 },
    [A64_LDR_Q] = { "ldr", 0x3DC00000u, LAYOUT_LS_UIMM, 16 },
    [A64_STR_S] = { "str", 0xBD000000u, LAYOUT_LS_UIMM, 4 },
    [A64_STR_D] = { "str", 0xFD000000u, LAYOUT_LS_UIMM, 8 },
    [A64_STR_Q] = { "str", 0x3D800000u, LAYOUT_LS_UIMM, 16 },
    [A64_LDR_Q_POST] = { "ldr", 0x3CC00400u, LAYOUT_LS_SIMM9, 1 },
    [A64_LDR_S_REG] = { "ldr", 0xBC606800u, LAYOUT_LS_REG, 1 },
    [A64_LDR_X_POST] = { "ldr", 0xF8400400u, LAYOUT_LS_SIMM9, 1 },
    [A64_LD1R_4S] = { "ld1r", 0x4D40C800u, LAYOUT_RN_RT, 1 },
    [A64_LD1_LANE_S] = { "ld1", 0x0D408000u, LAYOUT_LANE_S, 1 },
    [A64_ST1_LANE_S] = { "st1", 0x0D008000u, LAYOUT_LANE_S, 1 },
    [A64_FMLA_4S] = { "fmla", 0x4E20CC00u, LAYOUT_RRR, 1 },
    [A64_FMUL_4S] = { "fmul", 0x6E20DC00u, LAYOUT_RRR, 1 },
    [A64_FADD_4S] = { "fadd", 0x4E20D400u, LAYOUT_RRR, 1 },
    [A64_TRN1_4S] = { "trn1", 0x4E802800u, LAYOUT_RRR, 1 },
    [A64_TRN2_4S] = { "trn2", 0x4E806800u, LAYOUT_RRR, 1 },
    [A64_ZIP1_2D] = { "zip1", 0x4EC03800u, LAYOUT_RRR, 1 },
    [A64_ZIP2_2D] = { "zip2", 0x4EC07800u, LAYOUT_RRR, 1 },
    [A64_BIC_16B] = { "bic", 0x4E601C00u, LAYOUT_RRR, 1 },
    [A64_FMLA_ELEM_4S] = { "fmla", 0x4F801000u, LAYOUT_ELEM_S, 1 },
    [A64_FMUL_ELEM_4S] = { "fmul", 0x4F809000u, LAYOUT_ELEM_S, 1 },
    [A64_FCMLT_ZERO_4S] = { "fcmlt", 0x4EA0E800u, LAYOUT_RR, 1 },
    [A64_MOVI_ZERO_2D] = { "movi", 0x6F00E400u, LAYOUT_RD, 1 },
    [A64_ADD_IMM] = { "add", 0x91000000u, LAYOUT_ADDSUB, 1 },
    [A64_SUB_IMM] = { "sub", 0xD1000000u, LAYOUT_ADDSUB, 1 },
    [A64_SUBS_IMM] = { "subs", 0xF1000000u, LAYOUT_ADDSUB, 1 },
    [A64_ADD_REG] = { "add", 0x8B000000u, LAYOUT_RRR, 1 },
    [A64_ORR_REG] = { "orr", 0xAA000000u, LAYOUT_RRR, 1 },
    [A64_MOVZ] = { "movz", 0xD2800000u, LAYOUT_MOVW, 1 },
    [A64_MOVK] = { "movk", 0xF2800000u, LAYOUT_MOVW, 1 },
    [A64_STP_D_PRE] = { "stp", 0x6D800000u, LAYOUT_PAIR, 8 },
    [A64_LDP_D_POST] = { "ldp", 0x6CC00000u, LAYOUT_PAIR, 8 },
    [A64_B_COND] = { "b", 0x54000000u, LAYOUT_BR19, 4 },
    [A64_CBNZ] = { "cbnz", 0xB5000000u, LAYOUT_BR19, 4 },
    [A64_RET] = { "ret", 0xD65F03C0u, LAYOUT_NONE, 1 },
    [A64_ADR] = { "adr", 0x10000000u, LAYOUT_ADR, 1 },
};

const char *a64_op_name(a64_op op)
{
    return (unsigned)op < A64_OP_COUNT ? rows[op].name : "?";
}

static int reg_ok(int r)
{
    return r >= 0 && r <= 31;
}

/* Append the word, or mark the buffer failed when a check did not hold. */
static void put(jit_buf *b, int ok, uint32_t word)
{
    if (!ok) {
        b->failed = 1;
        return;
    }
    jit_emit32(b, word);
}

static const a64_row *row_of(jit_buf *b, a64_op op, layout want)
{
    if ((unsigned)op >= A64_OP_COUNT || rows[op].layout != want) {
        b->failed = 1;
        return NULL;
    }
    return &rows[op];
}

static uint32_t rd_rn(int rd, int rn)
{
    return (uint32_t)rd | (uint32_t)rn << 5;
}

void a64_mem(jit_buf *b, a64_op op, int rt, int rn, int64_t imm)
{
    if ((unsigned)op >= A64_OP_COUNT) {
        b->failed = 1;
        return;
    }
    const a64_row *r = &rows[op];
    const int regs = reg_ok(rt) && reg_ok(rn);
    if (r->layout == LAYOUT_LS_UIMM) {
        const int ok = regs && imm >= 0 && imm % r->scale == 0 && imm / r->scale <= 4095;
        put(b, ok, r->base | rd_rn(rt, rn) | (uint32_t)((imm / r->scale) & 0xFFF) << 10);
    } else if (r->layout == LAYOUT_LS_SIMM9) {
        const int ok = regs && imm >= -256 && imm <= 255;
        put(b, ok, r->base | rd_rn(rt, rn) | (uint32_t)(imm & 0x1FF) << 12);
    } else if (r->layout == LAYOUT_RN_RT) {
        put(b, regs && imm == 0, r->base | rd_rn(rt, rn));
    } else {
        b->failed = 1;
    }
}

void a64_mem_reg(jit_buf *b, a64_op op, int rt, int rn, int rm)
{
    const a64_row *r = row_of(b, op, LAYOUT_LS_REG);
    if (r != NULL)
        put(b, reg_ok(rt) && reg_ok(rn) && reg_ok(rm) && rm != 31, r->base | rd_rn(rt, rn) | (uint32_t)rm << 16);
}

void a64_mem_lane(jit_buf *b, a64_op op, int rt, int lane, int rn)
{
    const a64_row *r = row_of(b, op, LAYOUT_LANE_S);
    if (r != NULL)
        put(b, reg_ok(rt) && reg_ok(rn) && lane >= 0 && lane <= 3,
            r->base | rd_rn(rt, rn) | (uint32_t)(lane >> 1) << 30 | (uint32_t)(lane & 1) << 12);
}

void a64_rrr(jit_buf *b, a64_op op, int rd, int rn, int rm)
{
    const a64_row *r = row_of(b, op, LAYOUT_RRR);
    if (r != NULL)
        put(b, reg_ok(rd) && reg_ok(rn) && reg_ok(rm), r->base | rd_rn(rd, rn) | (uint32_t)rm << 16);
}

void a64_elem(jit_buf *b, a64_op op, int rd, int rn, int rm, int lane)
{
    const a64_row *r = row_of(b, op, LAYOUT_ELEM_S);
    if (r != NULL)
        put(b, reg_ok(rd) && reg_ok(rn) && reg_ok(rm) && lane >= 0 && lane <= 3,
            r->base | rd_rn(rd, rn) | (uint32_t)rm << 16 | (uint32_t)(lane & 1) << 21 | (uint32_t)(lane >> 1) << 11);
}

void a64_rr(jit_buf *b, a64_op op, int rd, int rn)
{
    if ((unsigned)op >= A64_OP_COUNT) {
        b->failed = 1;
        return;
    }
    const a64_row *r = &rows[op];
    switch (r->layout) {
    case LAYOUT_RR: put(b, reg_ok(rd) && reg_ok(rn), r->base | rd_rn(rd, rn)); break;
    case LAYOUT_RD: put(b, reg_ok(rd), r->base | (uint32_t)rd); break;
    default: b->failed = 1; break;
    }
}

void a64_addsub_imm(jit_buf *b, a64_op op, int rd, int rn, int64_t imm)
{
    const a64_row *r = row_of(b, op, LAYOUT_ADDSUB);
    if (r == NULL)
        return;
    const int low = imm >= 0 && imm <= 4095;
    const int high = imm > 4095 && imm % 4096 == 0 && imm / 4096 <= 4095;
    const uint32_t field = (uint32_t)(low ? imm : imm / 4096);
    put(b, reg_ok(rd) && reg_ok(rn) && (low || high), r->base | rd_rn(rd, rn) | field << 10 | (uint32_t)high << 22);
}

void a64_movw(jit_buf *b, a64_op op, int rd, uint32_t imm16, int hw)
{
    const a64_row *r = row_of(b, op, LAYOUT_MOVW);
    if (r != NULL)
        put(b, reg_ok(rd) && imm16 <= 0xFFFF && hw >= 0 && hw <= 3,
            r->base | (uint32_t)rd | imm16 << 5 | (uint32_t)hw << 21);
}

void a64_mov_imm(jit_buf *b, int rd, uint64_t imm)
{
    int first = 1;
    for (int hw = 0; hw < 4; hw++) {
        const uint32_t part = (uint32_t)(imm >> (16 * hw)) & 0xFFFF;
        if (part != 0) {
            a64_movw(b, first ? A64_MOVZ : A64_MOVK, rd, part, hw);
            first = 0;
        }
    }
    if (first)
        a64_movw(b, A64_MOVZ, rd, 0, 0);
}

void a64_add_const(jit_buf *b, int rd, int rn, int64_t v, int scratch)
{
    if (v < 0) {
        b->failed = 1;
        return;
    }
    if (v <= 4095 || (v % 4096 == 0 && v / 4096 <= 4095)) {
        if (v != 0 || rd != rn)
            a64_addsub_imm(b, A64_ADD_IMM, rd, rn, v);
    } else {
        a64_mov_imm(b, scratch, (uint64_t)v);
        a64_rrr(b, A64_ADD_REG, rd, rn, scratch);
    }
}

void a64_mem_far(jit_buf *b, a64_op op, int rt, int base, int64_t off, int scratch, int scratch2)
{
    if ((unsigned)op >= A64_OP_COUNT || rows[op].layout != LAYOUT_LS_UIMM) {
        b->failed = 1;
        return;
    }
    const int64_t size = rows[op].scale;
    if (off >= 0 && off % size == 0 && off / size <= 4095) {
        a64_mem(b, op, rt, base, off);
    } else {
        a64_add_const(b, scratch, base, off, scratch2);
        a64_mem(b, op, rt, scratch, 0);
    }
}

void a64_move_floats(jit_buf *b, int store, int n, int r, int base, int64_t off, int scratch, int scratch2)
{
    if (n == 4) {
        a64_mem_far(b, store ? A64_STR_Q : A64_LDR_Q, r, base, off, scratch, scratch2);
    } else if (n == 1) {
        a64_mem_far(b, store ? A64_STR_S : A64_LDR_S, r, base, off, scratch, scratch2);
    } else if (n == 2 || n == 3) {
        a64_mem_far(b, store ? A64_STR_D : A64_LDR_D, r, base, off, scratch, scratch2);
        if (n == 3) {
            a64_add_const(b, scratch, base, off + 8, scratch2);
            a64_mem_lane(b, store ? A64_ST1_LANE_S : A64_LD1_LANE_S, r, 2, scratch);
        }
    } else {
        b->failed = 1;
    }
}

void a64_pair(jit_buf *b, a64_op op, int rt, int rt2, int rn, int64_t imm)
{
    const a64_row *r = row_of(b, op, LAYOUT_PAIR);
    if (r != NULL)
        put(b, reg_ok(rt) && reg_ok(rt2) && reg_ok(rn) && imm % 8 == 0 && imm >= -512 && imm <= 504,
            r->base | rd_rn(rt, rn) | (uint32_t)rt2 << 10 | (uint32_t)((imm / 8) & 0x7F) << 15);
}

/* The word of a branch (or adr) at offset site to target. */
static uint32_t branch_word(jit_buf *b, const a64_row *r, int cond_or_rt, size_t site, size_t target)
{
    const int64_t delta = (int64_t)target - (int64_t)site;
    if (r->layout == LAYOUT_ADR) {
        if (delta < -(1 << 20) || delta >= (1 << 20) || !reg_ok(cond_or_rt))
            b->failed = 1;
        return r->base | (uint32_t)cond_or_rt | (uint32_t)(delta & 3) << 29 | (uint32_t)((delta >> 2) & 0x7FFFF) << 5;
    }
    const int64_t words = delta / 4;
    if (delta % 4 != 0)
        b->failed = 1;
    if (words < -(1 << 18) || words >= (1 << 18) || cond_or_rt < 0 || cond_or_rt > 31)
        b->failed = 1;
    return r->base | (uint32_t)cond_or_rt | (uint32_t)(words & 0x7FFFF) << 5;
}

static const a64_row *branch_row(jit_buf *b, a64_op op)
{
    if ((unsigned)op >= A64_OP_COUNT || (rows[op].layout != LAYOUT_BR19 && rows[op].layout != LAYOUT_ADR)) {
        b->failed = 1;
        return NULL;
    }
    return &rows[op];
}

void a64_branch_to(jit_buf *b, a64_op op, int cond_or_rt, size_t target)
{
    const a64_row *r = branch_row(b, op);
    if (r != NULL)
        jit_emit32(b, branch_word(b, r, cond_or_rt, b->len, target));
}

void a64_ret(jit_buf *b)
{
    jit_emit32(b, rows[A64_RET].base);
}
