/*
 * jit_x86.h - a small x86-64 instruction encoder for the run-time code
 * generators (library-internal): the instructions sketchmm's generated
 * kernels use, written into a jit_buf, in the encoding GNU as chooses for
 * the same Intel-syntax line (tests/test_jit_encode.c assembles every form
 * over a grid of registers and displacements and compares the bytes).
 *
 * Vector instructions are rows of one table (name, mandatory prefix, opcode
 * map, opcode, W, the encodings they exist in, and the memory tuple that
 * scales a compressed EVEX displacement). One function encodes any row:
 * VEX (2- or 3-byte) when the operands allow it, EVEX otherwise (zmm
 * registers, registers 16-31, an opmask, zeroing, embedded broadcast, or an
 * AVX-512-only row), with ModRM/SIB, disp8 (disp8*N under EVEX) or disp32,
 * and RIP-relative operands. General-purpose instructions (moves, lea,
 * add/sub/cmp, dec, conditional jumps back, push/pop, ret) have a function
 * each.
 *
 * Operands are register numbers: general registers X86_RAX .. X86_R15
 * (0-15), vector registers 0-31 (xmm/ymm/zmm by the width argument), opmask
 * registers 0-7 (0: no mask). A misuse the encoder cannot express (a VEX-only
 * row with zmm, say) sets buf->failed: a generator bug then shows as a
 * kernel that is not generated, never as wrong code.
 */
#ifndef EXACT_JIT_X86_H
#define EXACT_JIT_X86_H

#include <stddef.h>
#include <stdint.h>

#include "exact/jit_buf.h"

enum {
    X86_RAX, X86_RCX, X86_RDX, X86_RBX, X86_RSP, X86_RBP, X86_RSI, X86_RDI,
    X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14, X86_R15,
    X86_RIP = 16, /* as a memory base: RIP-relative, disp is then an offset in the buffer */
    X86_NOREG = -1
};

/* A memory operand: [base + index * scale + disp] (index X86_NOREG: none; scale 1, 2, 4, 8). */
typedef struct {
    int base, index, scale;
    int64_t disp;
} x86_mem;

static inline x86_mem x86_m(int base, int64_t disp)
{
    const x86_mem m = { base, X86_NOREG, 1, disp };
    return m;
}

static inline x86_mem x86_mi(int base, int index, int scale, int64_t disp)
{
    const x86_mem m = { base, index, scale, disp };
    return m;
}

/* [rip + ...] addressing the byte at offset `target` of the buffer being written. */
static inline x86_mem x86_rip(size_t target)
{
    const x86_mem m = { X86_RIP, X86_NOREG, 1, (int64_t)target };
    return m;
}

/* Vector length: xmm (128 bits), ymm (256), zmm (512). */
typedef enum { X86_XMM = 0, X86_YMM = 1, X86_ZMM = 2 } x86_width;

/*
 * The vector instructions. The operand roles of each (which register goes
 * in ModRM.reg, VEX.vvvv and ModRM.rm) are those of the Intel manual's
 * operand order; x86_vop_name gives the gas mnemonic.
 */
typedef enum {
    X86_VMOVUPS_LOAD,      /* vmovups v, m          reg = v, rm = m */
    X86_VMOVUPS_STORE,     /* vmovups m, v          reg = v, rm = m */
    X86_VMOVSS_LOAD,       /* vmovss xmm, m32 */
    X86_VMOVSS_STORE,      /* vmovss m32, xmm */
    X86_VMOVSD_LOAD,       /* vmovsd xmm, m64 (two floats, upper lanes zeroed) */
    X86_VMOVSD_STORE,      /* vmovsd m64, xmm */
    X86_VMOVNTPS,          /* vmovntps m, v (non-temporal store, aligned) */
    X86_VBROADCASTSS,      /* vbroadcastss v, m32 / xmm */
    X86_VFMADD231PS,       /* vfmadd231ps d, a, b:  d = a * b + d */
    X86_VMULPS,            /* vmulps d, a, b */
    X86_VADDPS,            /* vaddps d, a, b */
    X86_VMAXPS,            /* vmaxps d, a, b (b when either is NaN or both are zero) */
    X86_VXORPS,            /* vxorps d, a, b */
    X86_VUNPCKLPS,         /* vunpcklps d, a, b */
    X86_VUNPCKHPS,         /* vunpckhps d, a, b */
    X86_VSHUFPS,           /* vshufps d, a, b, imm */
    X86_VMOVHLPS,          /* vmovhlps d, a, b (xmm: d = b[2..3], a[2..3]) */
    X86_VMASKMOVPS_LOAD,   /* vmaskmovps v, mask, m (AVX2; lanes whose mask sign bit is clear read as 0, never fault) */
    X86_VMASKMOVPS_STORE,  /* vmaskmovps m, mask, v  reg = v, vvvv = mask */
    X86_VEXTRACTF128,      /* vextractf128 xmm, ymm, imm   reg = ymm, rm = xmm */
    X86_VPERM2F128,        /* vperm2f128 ymm, ymm, ymm, imm */
    X86_VEXTRACTF32X4,     /* vextractf32x4 xmm, ymm/zmm, imm   reg = source, rm = xmm */
    X86_VEXTRACTF32X8,     /* vextractf32x8 ymm, zmm, imm */
    X86_VINSERTF32X4,      /* vinsertf32x4 v, v, xmm, imm */
    X86_VSHUFF32X4,        /* vshuff32x4 d, a, b, imm */
    X86_VOP_COUNT
} x86_vop;

/* The gas mnemonic of a row ("vmovups", ...). */
const char *x86_vop_name(x86_vop op);

/*
 * The general form: reg, vvvv and rm are register numbers (vvvv 0 when the
 * row has none), mask an opmask (0: none), zero 1 for {z}, imm an 8-bit
 * immediate or -1. x86_vrr takes a register as rm; x86_vrm a memory operand,
 * bcast 1 for an embedded broadcast {1toN} of a 32-bit element.
 */
void x86_vrr(jit_buf *b, x86_vop op, x86_width w, int reg, int vvvv, int rm, int mask, int zero, int imm);
void x86_vrm(jit_buf *b, x86_vop op, x86_width w, int reg, int vvvv, x86_mem m, int mask, int zero, int bcast,
             int imm);

/* kmovw k, r32 (VEX.L0.0F.W0 92). */
void x86_kmovw(jit_buf *b, int k, int gpr);
/* vzeroupper; sfence; ret. */
void x86_vzeroupper(jit_buf *b);
void x86_sfence(jit_buf *b);
void x86_ret(jit_buf *b);

/* 64-bit moves: mov r, r; mov r, imm (imm32 sign-extended, or movabs); mov r, [m]; lea r, [m]. */
void x86_mov_rr(jit_buf *b, int dst, int src);
void x86_mov_ri(jit_buf *b, int dst, int64_t imm);
void x86_mov_rm(jit_buf *b, int dst, x86_mem m);
void x86_lea(jit_buf *b, int dst, x86_mem m);

/* 64-bit arithmetic: op r, imm32 (imm8 form when it fits); op r, r. */
typedef enum { X86_ADD = 0, X86_SUB = 5, X86_CMP = 7 } x86_alu;
void x86_alu_ri(jit_buf *b, x86_alu op, int dst, int32_t imm);
void x86_alu_rr(jit_buf *b, x86_alu op, int dst, int src);
void x86_dec(jit_buf *b, int r);
/* xor r32, r32: r := 0 (the upper half cleared too). */
void x86_zero(jit_buf *b, int r);
void x86_push(jit_buf *b, int r);
void x86_pop(jit_buf *b, int r);

/* Conditions of jcc (the low nibble of its opcode). */
typedef enum { X86_JE = 0x4, X86_JNE = 0x5, X86_JLE = 0xE, X86_JG = 0xF, X86_JL = 0xC, X86_JGE = 0xD } x86_cond;

/* jcc back to an offset already written (rel8 when it reaches, else rel32): the loops of the kernels. */
void x86_jcc_to(jit_buf *b, x86_cond cc, size_t target);

#endif /* EXACT_JIT_X86_H */
