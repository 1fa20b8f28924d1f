/*
 * jit_x86.c - the x86-64 encoder of jit_x86.h.
 *
 * Prefix bytes (Intel SDM vol. 2, chapter 2):
 *   REX   0100WRXB
 *   VEX   C5 [R' vvvv' L pp]                   (map 0F, W0, no X or B extension)
 *         C4 [R' X' B' mmmmm] [W vvvv' L pp]
 *   EVEX  62 [R' X' B' R'' 0 0 mm] [W vvvv' 1 pp] [z L'L b V'' aaa]
 * where a trailing ' marks a field stored inverted. R extends ModRM.reg, B
 * ModRM.rm or the SIB base, X the SIB index (EVEX register form: bit 4 of
 * ModRM.rm), R'' and V'' give registers 16-31. Under EVEX an 8-bit
 * displacement is scaled by N, the size of the memory tuple (disp8*N).
 */
#include "exact/jit_x86.h"

enum { FORM_VEX = 1, FORM_EVEX = 2 };

/* Memory tuples: how disp8 scales under EVEX. */
enum {
    TUPLE_NONE,     /* register operands only */
    TUPLE_FULL,     /* full vector, broadcast allowed: N = 4 with {1toN}, else the vector's bytes */
    TUPLE_FULL_MEM, /* full vector memory: N = the vector's bytes */
    TUPLE_SCALAR4,  /* one 32-bit element */
    TUPLE_SCALAR8,  /* one 64-bit element */
    TUPLE_BYTES16,  /* a 128-bit piece */
    TUPLE_BYTES32   /* a 256-bit piece */
};

/* Mandatory prefix (pp) and opcode map (mm) codes. */
enum { PP_NONE = 0, PP_66 = 1, PP_F3 = 2, PP_F2 = 3 };
enum { MAP_0F = 1, MAP_0F38 = 2, MAP_0F3A = 3 };

typedef struct {
    const char *name;
    uint8_t pp, map, opcode;
    uint8_t vex_w, evex_w;
    uint8_t forms;  /* FORM_VEX | FORM_EVEX */
    uint8_t tuple;
    uint8_t scalar; /* length ignored (LIG): always encoded as 128 bits */
    uint8_t no_mask; /* EVEX form without opmask or zeroing */
    uint8_t store;   /* a memory operand is the destination: no zeroing */
} vop_row;

static const vop_row rows[X86_VOP_COUNT] = {
    [X86_VMOVUPS_LOAD] = { "vmovups", PP_NONE, MAP_0F, 0x10, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL_MEM, 0, 0, 0 },
    [X86_VMOVUPS_STORE] = { "vmovups", PP_NONE, MAP_0F, 0x11, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL_MEM, 0, 0, 1 },
    [X86_VMOVSS_LOAD] = { "vmovss", PP_F3, MAP_0F, 0x10, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_SCALAR4, 1, 0, 0 },
    [X86_VMOVSS_STORE] = { "vmovss", PP_F3, MAP_0F, 0x11, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_SCALAR4, 1, 0, 1 },
    [X86_VMOVSD_LOAD] = { "vmovsd", PP_F2, MAP_0F, 0x10, 0, 1, FORM_VEX | FORM_EVEX, TUPLE_SCALAR8, 1, 0, 0 },
    [X86_VMOVSD_STORE] = { "vmovsd", PP_F2, MAP_0F, 0x11, 0, 1, FORM_VEX | FORM_EVEX, TUPLE_SCALAR8, 1, 0, 1 },
    [X86_VMOVNTPS] = { "vmovntps", PP_NONE, MAP_0F, 0x2B, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL_MEM, 0, 1, 1 },
    [X86_VBROADCASTSS] = { "vbroadcastss", PP_66, MAP_0F38, 0x18, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_SCALAR4, 0, 0, 0 },
    [X86_VFMADD231PS] = { "vfmadd231ps", PP_66, MAP_0F38, 0xB8, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VMULPS] = { "vmulps", PP_NONE, MAP_0F, 0x59, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VADDPS] = { "vaddps", PP_NONE, MAP_0F, 0x58, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VMAXPS] = { "vmaxps", PP_NONE, MAP_0F, 0x5F, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VXORPS] = { "vxorps", PP_NONE, MAP_0F, 0x57, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VUNPCKLPS] = { "vunpcklps", PP_NONE, MAP_0F, 0x14, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VUNPCKHPS] = { "vunpckhps", PP_NONE, MAP_0F, 0x15, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VSHUFPS] = { "vshufps", PP_NONE, MAP_0F, 0xC6, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
    [X86_VMOVHLPS] = { "vmovhlps", PP_NONE, MAP_0F, 0x12, 0, 0, FORM_VEX | FORM_EVEX, TUPLE_NONE, 0, 1, 0 },
    [X86_VMASKMOVPS_LOAD] = { "vmaskmovps", PP_66, MAP_0F38, 0x2C, 0, 0, FORM_VEX, TUPLE_NONE, 0, 0, 0 },
    [X86_VMASKMOVPS_STORE] = { "vmaskmovps", PP_66, MAP_0F38, 0x2E, 0, 0, FORM_VEX, TUPLE_NONE, 0, 0, 1 },
    [X86_VEXTRACTF128] = { "vextractf128", PP_66, MAP_0F3A, 0x19, 0, 0, FORM_VEX, TUPLE_NONE, 0, 0, 1 },
    [X86_VPERM2F128] = { "vperm2f128", PP_66, MAP_0F3A, 0x06, 0, 0, FORM_VEX, TUPLE_NONE, 0, 0, 0 },
    [X86_VEXTRACTF32X4] = { "vextractf32x4", PP_66, MAP_0F3A, 0x19, 0, 0, FORM_EVEX, TUPLE_BYTES16, 0, 0, 1 },
    [X86_VEXTRACTF32X8] = { "vextractf32x8", PP_66, MAP_0F3A, 0x1B, 0, 0, FORM_EVEX, TUPLE_BYTES32, 0, 0, 1 },
    [X86_VINSERTF32X4] = { "vinsertf32x4", PP_66, MAP_0F3A, 0x18, 0, 0, FORM_EVEX, TUPLE_BYTES16, 0, 0, 0 },
    [X86_VSHUFF32X4] = { "vshuff32x4", PP_66, MAP_0F3A, 0x23, 0, 0, FORM_EVEX, TUPLE_FULL, 0, 0, 0 },
};

const char *x86_vop_name(x86_vop op)
{
    return (unsigned)op < X86_VOP_COUNT ? rows[op].name : "?";
}

static int bit(int v, int n)
{
    return (v >> n) & 1;
}

/* The displacement scale N of an EVEX memory operand. */
static int disp8_scale(const vop_row *r, x86_width w, int bcast)
{
    const int vector_bytes = 16 << (int)w;
    switch (r->tuple) {
    case TUPLE_FULL: return bcast ? 4 : vector_bytes;
    case TUPLE_FULL_MEM: return vector_bytes;
    case TUPLE_SCALAR4: return 4;
    case TUPLE_SCALAR8: return 8;
    case TUPLE_BYTES16: return 16;
    case TUPLE_BYTES32: return 32;
    default: return 1;
    }
}

static int fits_int32(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * One instruction being put together (at most 15 bytes), written to the
 * buffer in one piece: the encoders touch the buffer once per instruction.
 */
typedef struct {
    uint8_t byte[16];
    int n;
} insn;

static void put8(insn *i, unsigned v)
{
    i->byte[i->n++] = (uint8_t)v;
}

static void put32(insn *i, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        put8(i, (v >> (8 * k)) & 0xFF);
}

static void finish(jit_buf *b, const insn *i)
{
    jit_emit_bytes(b, i->byte, (size_t)i->n);
}

/*
 * ModRM, SIB and displacement of a memory operand with `reg` in ModRM.reg;
 * n scales an 8-bit displacement (1 outside EVEX); imm_bytes follow the
 * displacement (RIP-relative offsets count from the end of the instruction,
 * which starts at the buffer's current end).
 */
static void emit_mem(jit_buf *b, insn *i, int reg, x86_mem m, int n, int imm_bytes)
{
    if (m.base == X86_RIP) {
        put8(i, ((reg & 7) << 3) | 5);
        const int64_t rel = m.disp - (int64_t)(b->len + (size_t)i->n + 4 + (size_t)imm_bytes);
        if (!fits_int32(rel))
            b->failed = 1;
        put32(i, (uint32_t)(int32_t)rel);
        return;
    }
    if (m.base < 0 || m.base > 15 || m.index == X86_RSP || m.index > 15 || !fits_int32(m.disp) ||
        (m.scale != 1 && m.scale != 2 && m.scale != 4 && m.scale != 8)) {
        b->failed = 1;
        return;
    }
    const int base = m.base & 7, sib = m.index != X86_NOREG || base == 4;
    /* n is a power of two: the scaled displacement by shifts (exact for the multiples of n that qualify) */
    const int shift = __builtin_ctz((unsigned)n);
    const int64_t scaled = m.disp >> shift;
    int mod;
    if (m.disp == 0 && base != 5)
        mod = 0;
    else if ((m.disp & (n - 1)) == 0 && scaled >= -128 && scaled <= 127)
        mod = 1;
    else
        mod = 2;
    put8(i, (mod << 6) | ((reg & 7) << 3) | (sib ? 4 : base));
    if (sib) {
        const int ss = m.scale == 8 ? 3 : m.scale == 4 ? 2 : m.scale == 2 ? 1 : 0;
        const int index = m.index == X86_NOREG ? 4 : m.index & 7;
        put8(i, (ss << 6) | (index << 3) | base);
    }
    if (mod == 1)
        put8(i, (uint8_t)(int8_t)scaled);
    else if (mod == 2)
        put32(i, (uint32_t)(int32_t)m.disp);
}

/* ModRM of a register operand. */
static void emit_reg(insn *i, int reg, int rm)
{
    put8(i, 0xC0 | ((reg & 7) << 3) | (rm & 7));
}

/*
 * The VEX or EVEX prefix and the opcode. x and bb are the X and B extension
 * bits (for a register rm: bit 4 of rm in x under EVEX, bit 3 in bb).
 */
static void emit_vector_prefix(insn *i, const vop_row *r, int evex, int L, int reg, int vvvv, int x, int bb,
                               int mask, int zero, int bcast)
{
    if (evex) {
        put8(i, 0x62);
        put8(i, (!bit(reg, 3) << 7) | (!x << 6) | (!bb << 5) | (!bit(reg, 4) << 4) | r->map);
        put8(i, (r->evex_w << 7) | ((~vvvv & 15) << 3) | 4 | r->pp);
        put8(i, (zero << 7) | (L << 5) | (bcast << 4) | (!bit(vvvv, 4) << 3) | (mask & 7));
    } else if (!x && !bb && r->vex_w == 0 && r->map == MAP_0F) {
        put8(i, 0xC5);
        put8(i, (!bit(reg, 3) << 7) | ((~vvvv & 15) << 3) | (L << 2) | r->pp);
    } else {
        put8(i, 0xC4);
        put8(i, (!bit(reg, 3) << 7) | (!x << 6) | (!bb << 5) | r->map);
        put8(i, (r->vex_w << 7) | ((~vvvv & 15) << 3) | (L << 2) | r->pp);
    }
    put8(i, r->opcode);
}

/* EVEX when the row or the operands need it; -1 when the row cannot take them. */
static int choose_evex(const vop_row *r, x86_width w, int regs_high, int mask, int zero, int bcast)
{
    if (r->no_mask && (mask != 0 || zero))
        return -1;
    const int need = w == X86_ZMM || regs_high || mask != 0 || zero || bcast;
    if (!(r->forms & FORM_VEX))
        return 1;
    if (need)
        return (r->forms & FORM_EVEX) ? 1 : -1;
    return 0;
}

static int valid_vector(int v)
{
    return v >= 0 && v < 32;
}

void x86_vrr(jit_buf *b, x86_vop op, x86_width w, int reg, int vvvv, int rm, int mask, int zero, int imm)
{
    if ((unsigned)op >= X86_VOP_COUNT || !valid_vector(reg) || !valid_vector(vvvv) || !valid_vector(rm) ||
        mask < 0 || mask > 7) {
        b->failed = 1;
        return;
    }
    const vop_row *r = &rows[op];
    if (r->scalar)
        w = X86_XMM;
    const int evex = choose_evex(r, w, reg >= 16 || vvvv >= 16 || rm >= 16, mask, zero, 0);
    if (evex < 0) {
        b->failed = 1;
        return;
    }
    if (!evex && op == X86_VMOVUPS_LOAD && bit(rm, 3) && !bit(reg, 3)) {
        /* a register move whose source needs VEX.B: the store form with the roles swapped fits in 2-byte VEX */
        const int t = reg;
        reg = rm;
        rm = t;
        r = &rows[X86_VMOVUPS_STORE];
    }
    insn i = { { 0 }, 0 };
    emit_vector_prefix(&i, r, evex, (int)w, reg, vvvv, evex ? bit(rm, 4) : 0, bit(rm, 3), mask, zero, 0);
    emit_reg(&i, reg, rm);
    if (imm >= 0)
        put8(&i, (unsigned)imm & 0xFF);
    finish(b, &i);
}

void x86_vrm(jit_buf *b, x86_vop op, x86_width w, int reg, int vvvv, x86_mem m, int mask, int zero, int bcast,
             int imm)
{
    if ((unsigned)op >= X86_VOP_COUNT || !valid_vector(reg) || !valid_vector(vvvv) || mask < 0 || mask > 7 ||
        (bcast && rows[op].tuple != TUPLE_FULL) || (rows[op].tuple == TUPLE_NONE && (rows[op].forms & FORM_EVEX))) {
        b->failed = 1;
        return;
    }
    const vop_row *r = &rows[op];
    if (r->scalar)
        w = X86_XMM;
    const int evex = choose_evex(r, w, reg >= 16 || vvvv >= 16, mask, zero, bcast);
    if (evex < 0 || (r->store && zero)) {
        b->failed = 1;
        return;
    }
    const int x = m.base != X86_RIP && m.index != X86_NOREG ? bit(m.index, 3) : 0;
    const int bb = m.base != X86_RIP ? bit(m.base, 3) : 0;
    insn i = { { 0 }, 0 };
    emit_vector_prefix(&i, r, evex, (int)w, reg, vvvv, x, bb, mask, zero, bcast);
    emit_mem(b, &i, reg, m, evex ? disp8_scale(r, w, bcast) : 1, imm >= 0 ? 1 : 0);
    if (imm >= 0)
        put8(&i, (unsigned)imm & 0xFF);
    finish(b, &i);
}

void x86_kmovw(jit_buf *b, int k, int gpr)
{
    if (k < 0 || k > 7 || gpr < 0 || gpr > 15) {
        b->failed = 1;
        return;
    }
    insn i = { { 0 }, 0 };
    if (gpr < 8) {
        put8(&i, 0xC5);
        put8(&i, 0xF8);
    } else {
        put8(&i, 0xC4);
        put8(&i, 0x80 | 0x40 | MAP_0F); /* R' X' set, B' clear: rm extended */
        put8(&i, 0x78);
    }
    put8(&i, 0x92);
    emit_reg(&i, k, gpr);
    finish(b, &i);
}

void x86_vzeroupper(jit_buf *b)
{
    static const uint8_t code[] = { 0xC5, 0xF8, 0x77 };
    jit_emit_bytes(b, code, sizeof code);
}

void x86_sfence(jit_buf *b)
{
    static const uint8_t code[] = { 0x0F, 0xAE, 0xF8 };
    jit_emit_bytes(b, code, sizeof code);
}

void x86_ret(jit_buf *b)
{
    jit_emit8(b, 0xC3);
}

/* ---- general-purpose instructions ---- */

static int valid_gpr(int r)
{
    return r >= 0 && r < 16;
}

/* REX.W with R from reg, X from the memory index, B from rm or the base. */
static void emit_rex_w(insn *i, int reg, int x, int bb)
{
    put8(i, 0x48 | (bit(reg, 3) << 2) | (x << 1) | bb);
}

/* REX.W opcode /reg with a memory operand. */
static void rex_w_mem(jit_buf *b, uint8_t opcode, int reg, x86_mem m)
{
    if (!valid_gpr(reg)) {
        b->failed = 1;
        return;
    }
    const int x = m.base != X86_RIP && m.index != X86_NOREG ? bit(m.index, 3) : 0;
    const int bb = m.base != X86_RIP ? bit(m.base, 3) : 0;
    insn i = { { 0 }, 0 };
    emit_rex_w(&i, reg, x, bb);
    put8(&i, opcode);
    emit_mem(b, &i, reg, m, 1, 0);
    finish(b, &i);
}

/* REX.W opcode /reg with a register rm, then imm_bytes bytes of imm. */
static void rex_w_reg(jit_buf *b, uint8_t opcode, int reg, int rm, int imm_bytes, int64_t imm)
{
    if (!valid_gpr(reg) || !valid_gpr(rm)) {
        b->failed = 1;
        return;
    }
    insn i = { { 0 }, 0 };
    emit_rex_w(&i, reg, 0, bit(rm, 3));
    put8(&i, opcode);
    emit_reg(&i, reg, rm);
    for (int k = 0; k < imm_bytes; k++)
        put8(&i, (unsigned)((uint64_t)imm >> (8 * k)) & 0xFF);
    finish(b, &i);
}

void x86_mov_rr(jit_buf *b, int dst, int src)
{
    rex_w_reg(b, 0x89, src, dst, 0, 0);
}

void x86_mov_ri(jit_buf *b, int dst, int64_t imm)
{
    if (!valid_gpr(dst)) {
        b->failed = 1;
        return;
    }
    if (fits_int32(imm)) {
        rex_w_reg(b, 0xC7, 0, dst, 4, imm);
    } else {
        insn i = { { 0 }, 0 };
        emit_rex_w(&i, 0, 0, bit(dst, 3));
        put8(&i, 0xB8 | (dst & 7));
        put32(&i, (uint32_t)(uint64_t)imm);
        put32(&i, (uint32_t)((uint64_t)imm >> 32));
        finish(b, &i);
    }
}

void x86_mov_rm(jit_buf *b, int dst, x86_mem m)
{
    rex_w_mem(b, 0x8B, dst, m);
}

void x86_lea(jit_buf *b, int dst, x86_mem m)
{
    rex_w_mem(b, 0x8D, dst, m);
}

void x86_alu_ri(jit_buf *b, x86_alu op, int dst, int32_t imm)
{
    if (imm >= -128 && imm <= 127) {
        rex_w_reg(b, 0x83, (int)op, dst, 1, imm);
    } else if (dst == X86_RAX) {
        insn i = { { 0 }, 0 };
        emit_rex_w(&i, 0, 0, 0);
        put8(&i, ((unsigned)op << 3) | 5);
        put32(&i, (uint32_t)imm);
        finish(b, &i);
    } else {
        rex_w_reg(b, 0x81, (int)op, dst, 4, imm);
    }
}

void x86_alu_rr(jit_buf *b, x86_alu op, int dst, int src)
{
    rex_w_reg(b, (uint8_t)(((int)op << 3) | 1), src, dst, 0, 0);
}

void x86_dec(jit_buf *b, int r)
{
    rex_w_reg(b, 0xFF, 1, r, 0, 0);
}

void x86_zero(jit_buf *b, int r)
{
    if (!valid_gpr(r)) {
        b->failed = 1;
        return;
    }
    insn i = { { 0 }, 0 };
    if (r >= 8)
        put8(&i, 0x45); /* REX.R and REX.B */
    put8(&i, 0x31);
    emit_reg(&i, r, r);
    finish(b, &i);
}

static void push_pop(jit_buf *b, uint8_t opcode, int r)
{
    if (!valid_gpr(r)) {
        b->failed = 1;
        return;
    }
    if (r >= 8)
        jit_emit8(b, 0x41);
    jit_emit8(b, (uint8_t)(opcode | (r & 7)));
}

void x86_push(jit_buf *b, int r)
{
    push_pop(b, 0x50, r);
}

void x86_pop(jit_buf *b, int r)
{
    push_pop(b, 0x58, r);
}

/* ---- jumps ---- */

void x86_jcc_to(jit_buf *b, x86_cond cc, size_t target)
{
    const int64_t short_rel = (int64_t)target - (int64_t)(b->len + 2);
    insn i = { { 0 }, 0 };
    if (short_rel >= -128 && short_rel <= 127) {
        put8(&i, 0x70 | (unsigned)cc);
        put8(&i, (uint8_t)(int8_t)short_rel);
    } else {
        const int64_t rel = (int64_t)target - (int64_t)(b->len + 6);
        if (!fits_int32(rel))
            b->failed = 1;
        put8(&i, 0x0F);
        put8(&i, 0x80 | (unsigned)cc);
        put32(&i, (uint32_t)(int32_t)rel);
    }
    finish(b, &i);
}
