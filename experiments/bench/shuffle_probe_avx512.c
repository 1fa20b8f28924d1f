/*
 * shuffle_probe_avx512.c - the 512-bit VPSHUFB + VPADDB loop of the
 * byte-shuffle probe (shuffle_probe.h): SHUFFLE_PROBE_CHAINS independent
 * accumulators, each looked up in the table and added to once per iteration;
 * and the loops of SHUFFLE_PROBE_512_U16 (16-bit accumulation) and
 * SHUFFLE_PROBE_512_VPERMB (the instruction pair of pq_scan's kernel).
 */
#include <immintrin.h>

#include "shuffle_probe.h"

double shuffle_probe_loop_avx512(int64_t iterations, uint64_t seed)
{
    const __m512i table = _mm512_set1_epi64((long long)seed);
    __m512i acc[SHUFFLE_PROBE_CHAINS];
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS; r++)
        acc[r] = _mm512_set1_epi64((long long)(seed * (uint64_t)(r + 3)));
    for (int64_t it = 0; it < iterations; it++) {
        /* a fixed count: the compiler keeps all accumulators in registers */
        for (int r = 0; r < SHUFFLE_PROBE_CHAINS; r++)
            acc[r] = _mm512_add_epi8(acc[r], _mm512_shuffle_epi8(table, acc[r]));
    }
    __m512i total = acc[0];
    for (int r = 1; r < SHUFFLE_PROBE_CHAINS; r++)
        total = _mm512_xor_si512(total, acc[r]);
    return (double)_mm512_reduce_add_epi64(_mm512_and_si512(total, _mm512_set1_epi64(0xffff)));
}

double shuffle_probe_loop_u16_avx512(int64_t iterations, uint64_t seed)
{
    const __m512i table = _mm512_set1_epi64((long long)seed);
    __m512i a[SHUFFLE_PROBE_CHAINS_U16], b[SHUFFLE_PROBE_CHAINS_U16];
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS_U16; r++) {
        a[r] = _mm512_set1_epi64((long long)(seed * (uint64_t)(r + 3)));
        b[r] = _mm512_setzero_si512();
    }
    for (int64_t it = 0; it < iterations; it++) {
        for (int r = 0; r < SHUFFLE_PROBE_CHAINS_U16; r++) {
            const __m512i x = _mm512_shuffle_epi8(table, a[r]);
            a[r] = _mm512_add_epi16(a[r], x);
            b[r] = _mm512_add_epi16(b[r], _mm512_srli_epi16(x, 8));
        }
    }
    __m512i total = _mm512_setzero_si512();
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS_U16; r++)
        total = _mm512_xor_si512(total, _mm512_xor_si512(a[r], b[r]));
    return (double)_mm512_reduce_add_epi64(_mm512_and_si512(total, _mm512_set1_epi64(0xffff)));
}

/*
 * Written in assembly: in C, GCC 12 shared VPERMBs between accumulators that
 * looked the same (index, table) up and spilled accumulators to the stack,
 * so the loop did not run the pairs it claims. Here zmm0-15 accumulate,
 * zmm16-19 are 4 tables, zmm20-23 4 index vectors (one add each per
 * iteration, as a kernel's code loads would change them), zmm24 the ones,
 * zmm25 the index step, and the 16 lookups (4 tables x 4 indices) are all
 * different, their results rotating through zmm26-29.
 */
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni"))) double
shuffle_probe_loop_vpermb_avx512(int64_t iterations, uint64_t seed)
{
    const __m512i ones = _mm512_set1_epi8(1), step = _mm512_set1_epi8(5);
    __m512i acc[SHUFFLE_PROBE_CHAINS_VPERMB], fixed[10];
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS_VPERMB; r++)
        acc[r] = _mm512_set1_epi64((long long)(seed * (uint64_t)(r + 3)));
    for (int i = 0; i < 4; i++) {
        fixed[i] = _mm512_set1_epi64((long long)((seed ^ 0x55) + 0x0101010101010101ull * (uint64_t)i));
        fixed[4 + i] = _mm512_set1_epi64((long long)(seed + 0x0505050505050505ull * (uint64_t)i));
    }
    fixed[8] = ones;
    fixed[9] = step;
    if (iterations > 0)
        __asm__ volatile(
        "vmovdqu64 0(%[acc]), %%zmm0\n\t"
        "vmovdqu64 64(%[acc]), %%zmm1\n\t"
        "vmovdqu64 128(%[acc]), %%zmm2\n\t"
        "vmovdqu64 192(%[acc]), %%zmm3\n\t"
        "vmovdqu64 256(%[acc]), %%zmm4\n\t"
        "vmovdqu64 320(%[acc]), %%zmm5\n\t"
        "vmovdqu64 384(%[acc]), %%zmm6\n\t"
        "vmovdqu64 448(%[acc]), %%zmm7\n\t"
        "vmovdqu64 512(%[acc]), %%zmm8\n\t"
        "vmovdqu64 576(%[acc]), %%zmm9\n\t"
        "vmovdqu64 640(%[acc]), %%zmm10\n\t"
        "vmovdqu64 704(%[acc]), %%zmm11\n\t"
        "vmovdqu64 768(%[acc]), %%zmm12\n\t"
        "vmovdqu64 832(%[acc]), %%zmm13\n\t"
        "vmovdqu64 896(%[acc]), %%zmm14\n\t"
        "vmovdqu64 960(%[acc]), %%zmm15\n\t"
        "vmovdqu64 0(%[fixed]), %%zmm16\n\t"
        "vmovdqu64 64(%[fixed]), %%zmm17\n\t"
        "vmovdqu64 128(%[fixed]), %%zmm18\n\t"
        "vmovdqu64 192(%[fixed]), %%zmm19\n\t"
        "vmovdqu64 256(%[fixed]), %%zmm20\n\t"
        "vmovdqu64 320(%[fixed]), %%zmm21\n\t"
        "vmovdqu64 384(%[fixed]), %%zmm22\n\t"
        "vmovdqu64 448(%[fixed]), %%zmm23\n\t"
        "vmovdqu64 512(%[fixed]), %%zmm24\n\t"
        "vmovdqu64 576(%[fixed]), %%zmm25\n\t"
        "1:\n\t"
        "vpermb %%zmm16, %%zmm20, %%zmm26\n\t"
        "vpdpbusd %%zmm24, %%zmm26, %%zmm0\n\t"
        "vpermb %%zmm17, %%zmm20, %%zmm27\n\t"
        "vpdpbusd %%zmm24, %%zmm27, %%zmm1\n\t"
        "vpermb %%zmm18, %%zmm20, %%zmm28\n\t"
        "vpdpbusd %%zmm24, %%zmm28, %%zmm2\n\t"
        "vpermb %%zmm19, %%zmm20, %%zmm29\n\t"
        "vpdpbusd %%zmm24, %%zmm29, %%zmm3\n\t"
        "vpermb %%zmm16, %%zmm21, %%zmm26\n\t"
        "vpdpbusd %%zmm24, %%zmm26, %%zmm4\n\t"
        "vpermb %%zmm17, %%zmm21, %%zmm27\n\t"
        "vpdpbusd %%zmm24, %%zmm27, %%zmm5\n\t"
        "vpermb %%zmm18, %%zmm21, %%zmm28\n\t"
        "vpdpbusd %%zmm24, %%zmm28, %%zmm6\n\t"
        "vpermb %%zmm19, %%zmm21, %%zmm29\n\t"
        "vpdpbusd %%zmm24, %%zmm29, %%zmm7\n\t"
        "vpermb %%zmm16, %%zmm22, %%zmm26\n\t"
        "vpdpbusd %%zmm24, %%zmm26, %%zmm8\n\t"
        "vpermb %%zmm17, %%zmm22, %%zmm27\n\t"
        "vpdpbusd %%zmm24, %%zmm27, %%zmm9\n\t"
        "vpermb %%zmm18, %%zmm22, %%zmm28\n\t"
        "vpdpbusd %%zmm24, %%zmm28, %%zmm10\n\t"
        "vpermb %%zmm19, %%zmm22, %%zmm29\n\t"
        "vpdpbusd %%zmm24, %%zmm29, %%zmm11\n\t"
        "vpermb %%zmm16, %%zmm23, %%zmm26\n\t"
        "vpdpbusd %%zmm24, %%zmm26, %%zmm12\n\t"
        "vpermb %%zmm17, %%zmm23, %%zmm27\n\t"
        "vpdpbusd %%zmm24, %%zmm27, %%zmm13\n\t"
        "vpermb %%zmm18, %%zmm23, %%zmm28\n\t"
        "vpdpbusd %%zmm24, %%zmm28, %%zmm14\n\t"
        "vpermb %%zmm19, %%zmm23, %%zmm29\n\t"
        "vpdpbusd %%zmm24, %%zmm29, %%zmm15\n\t"
        "vpaddb %%zmm25, %%zmm20, %%zmm20\n\t"
        "vpaddb %%zmm25, %%zmm21, %%zmm21\n\t"
        "vpaddb %%zmm25, %%zmm22, %%zmm22\n\t"
        "vpaddb %%zmm25, %%zmm23, %%zmm23\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vmovdqu64 %%zmm0, 0(%[acc])\n\t"
        "vmovdqu64 %%zmm1, 64(%[acc])\n\t"
        "vmovdqu64 %%zmm2, 128(%[acc])\n\t"
        "vmovdqu64 %%zmm3, 192(%[acc])\n\t"
        "vmovdqu64 %%zmm4, 256(%[acc])\n\t"
        "vmovdqu64 %%zmm5, 320(%[acc])\n\t"
        "vmovdqu64 %%zmm6, 384(%[acc])\n\t"
        "vmovdqu64 %%zmm7, 448(%[acc])\n\t"
        "vmovdqu64 %%zmm8, 512(%[acc])\n\t"
        "vmovdqu64 %%zmm9, 576(%[acc])\n\t"
        "vmovdqu64 %%zmm10, 640(%[acc])\n\t"
        "vmovdqu64 %%zmm11, 704(%[acc])\n\t"
        "vmovdqu64 %%zmm12, 768(%[acc])\n\t"
        "vmovdqu64 %%zmm13, 832(%[acc])\n\t"
        "vmovdqu64 %%zmm14, 896(%[acc])\n\t"
        "vmovdqu64 %%zmm15, 960(%[acc])\n\t"
        : [n] "+r"(iterations)
        : [acc] "r"(acc), [fixed] "r"(fixed)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "cc", "memory");
    __m512i total = acc[0];
    for (int r = 1; r < SHUFFLE_PROBE_CHAINS_VPERMB; r++)
        total = _mm512_xor_si512(total, acc[r]);
    return (double)_mm512_reduce_add_epi64(_mm512_and_si512(total, _mm512_set1_epi64(0xffff)));
}
