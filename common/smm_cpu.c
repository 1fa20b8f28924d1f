/* smm_cpu.c - CPU feature detection (cpuid/xgetbv on x86-64; AArch64 always has NEON). */
#include <pthread.h>

#include "common/smm_runtime.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static smm_cpu_features detect(void)
{
    smm_cpu_features f = { 0, 0, 0, 0, 0 };
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return f;
    const int osxsave = (c >> 27) & 1, fma = (c >> 12) & 1, popcnt = (c >> 23) & 1;
    if (!osxsave)
        return f;
    const uint64_t xcr0 = xgetbv0();
    const int ymm_state = (xcr0 & 0x6) == 0x6;   /* SSE and AVX state */
    const int zmm_state = (xcr0 & 0xe6) == 0xe6; /* plus opmask and both zmm halves */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return f;
    const int avx2 = (b >> 5) & 1;
    const int avx512f = (b >> 16) & 1, avx512dq = (b >> 17) & 1;
    const int avx512bw = (b >> 30) & 1, avx512vl = (b >> 31) & 1;
    const int vpopcntdq = (c >> 14) & 1, vbmi = (c >> 1) & 1, vnni = (c >> 11) & 1;
    f.avx2_fma = ymm_state && avx2 && fma && popcnt;
    f.avx512 = f.avx2_fma && zmm_state && avx512f && avx512dq && avx512bw && avx512vl;
    f.avx512_vpopcntdq = f.avx512 && vpopcntdq;
    int bf16 = 0;
    if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
        bf16 = (a >> 5) & 1;
    if (f.avx512)
        f.flags = (vpopcntdq ? SMM_CPU_VPOPCNTDQ : 0u) | (vbmi ? SMM_CPU_VBMI : 0u) | (vnni ? SMM_CPU_VNNI : 0u) |
                  (bf16 ? SMM_CPU_BF16 : 0u);
    return f;
}
#elif defined(__aarch64__)
static smm_cpu_features detect(void)
{
    smm_cpu_features f = { 0, 0, 0, 1, 0 };
    return f;
}
#else
static smm_cpu_features detect(void)
{
    smm_cpu_features f = { 0, 0, 0, 0, 0 };
    return f;
}
#endif

static smm_cpu_features features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
    features = detect();
}

const smm_cpu_features *smm_cpu(void)
{
    pthread_once(&features_once, detect_once);
    return &features;
}
