/*
 * jit_cache.c - the process-wide cache of generated kernels (jit_cache.h)
 * and the public statistics of sketchmm/jit.h.
 *
 * A chained hash table of JIT_BUCKETS buckets under one mutex. Each entry
 * owns its code (jit_code.h) and a copy of its key. Eviction (only when the
 * table holds more than SMM_JIT_CACHE_KERNELS) scans for the least recently
 * used entry that is neither resident nor referenced: a linear scan, rare
 * and bounded by the table size.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "exact/jit_cache.h"
#include "exact/jit_code.h"

#define JIT_BUCKETS 4096 /* a power of two */

struct jit_kernel {
    struct jit_kernel *next; /* in its bucket */
    jit_writer writer;
    uint64_t hash;
    jit_code code;
    jit_entries entries;
    int64_t refs;      /* JIT_FOR_PLAN references held */
    int resident;      /* JIT_RESIDENT: never dropped */
    int in_table;      /* 0: handed out uncached (freed at its last release) */
    uint64_t last_use; /* tick of the latest request */
    size_t key_len;
    unsigned char key[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static jit_kernel *buckets[JIT_BUCKETS];
static int64_t in_table, resident_count;
static uint64_t tick;
static smm_jit_stats stats; /* under lock */

static uint64_t hash_of(jit_writer write, const void *key, size_t len)
{
    return XXH3_64bits_withSeed(key, len, (uint64_t)(uintptr_t)write);
}

static jit_kernel **bucket_of(uint64_t hash)
{
    return &buckets[hash & (JIT_BUCKETS - 1)];
}

static jit_kernel *find(jit_writer write, uint64_t hash, const void *key, size_t len)
{
    for (jit_kernel *k = *bucket_of(hash); k != NULL; k = k->next)
        if (k->hash == hash && k->writer == write && k->key_len == len && memcmp(k->key, key, len) == 0)
            return k;
    return NULL;
}

static void unlink_entry(jit_kernel *k)
{
    for (jit_kernel **p = bucket_of(k->hash); *p != NULL; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            k->next = NULL;
            k->in_table = 0;
            in_table--;
            return;
        }
}

static void destroy(jit_kernel *k)
{
    jit_code_free(&k->code);
    free(k);
}

/* Under lock: the least recently used entry nothing holds, or NULL. */
static jit_kernel *eviction_victim(void)
{
    jit_kernel *best = NULL;
    for (size_t i = 0; i < JIT_BUCKETS; i++)
        for (jit_kernel *k = buckets[i]; k != NULL; k = k->next)
            if (!k->resident && k->refs == 0 && (best == NULL || k->last_use < best->last_use))
                best = k;
    return best;
}

/* Under lock: a cached entry answers the request. */
static const jit_kernel *take(jit_kernel *k, jit_lifetime life)
{
    k->last_use = ++tick;
    if (life == JIT_FOR_PLAN) {
        k->refs++;
    } else if (!k->resident) {
        k->resident = 1;
        resident_count++;
    }
    stats.hits++;
    return k;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Write and map a new entry (no lock held). */
static smm_status build(jit_writer write, const void *key, size_t len, uint64_t hash, jit_kernel **out)
{
    const double t0 = seconds_now();
    jit_kernel *k = calloc(1, sizeof *k + len);
    if (k == NULL)
        return SMM_ERR_NO_MEMORY;
    k->writer = write;
    k->hash = hash;
    k->key_len = len;
    memcpy(k->key, key, len);
    jit_buf b = { 0 };
    smm_status s = SMM_OK;
    if (!write(key, &b, &k->entries) || b.failed || k->entries.count < 1 || k->entries.count > JIT_MAX_ENTRIES)
        s = b.failed && b.len < JIT_BUF_MAX && b.cap < JIT_BUF_MAX ? SMM_ERR_NO_MEMORY : SMM_ERR_BAD_ARGUMENT;
    for (int i = 0; s == SMM_OK && i < k->entries.count; i++)
        if (k->entries.at[i] >= b.len)
            s = SMM_ERR_BAD_ARGUMENT;
    if (s == SMM_OK)
        s = jit_code_make(&b, &k->code);
    jit_buf_free(&b);
    if (s != SMM_OK) {
        free(k);
        return s;
    }
    pthread_mutex_lock(&lock);
    stats.generate_seconds += seconds_now() - t0;
    pthread_mutex_unlock(&lock);
    *out = k;
    return SMM_OK;
}

static smm_status kernel_get(jit_writer write, const void *key, size_t key_len, jit_lifetime life,
                             const jit_kernel **out);

/*
 * Each thread's last few resident kernels, looked up before the table (no
 * lock, no hash): a call without a plan (unary_apply, a small exact_sgemm)
 * finds the kernel of a repeated shape in a few compares. Safe because
 * resident kernels, their keys included, are never freed.
 */
#define RECENT 4
static _Thread_local const jit_kernel *recent[RECENT];
static _Thread_local unsigned recent_next;
static atomic_llong recent_hits; /* counted apart from stats.hits: no lock taken */

static const jit_kernel *recent_find(jit_writer write, const void *key, size_t len)
{
    for (int i = 0; i < RECENT; i++) {
        const jit_kernel *k = recent[i];
        if (k != NULL && k->writer == write && k->key_len == len && memcmp(k->key, key, len) == 0)
            return k;
    }
    return NULL;
}

static void recent_add(const jit_kernel *k)
{
    recent[recent_next++ % RECENT] = k;
}

void jit_count_hit(void)
{
    atomic_fetch_add_explicit(&recent_hits, 1, memory_order_relaxed);
}

smm_status jit_kernel_get(jit_writer write, const void *key, size_t key_len, jit_lifetime life,
                          const jit_kernel **out)
{
    *out = life == JIT_RESIDENT ? recent_find(write, key, key_len) : NULL;
    if (*out != NULL) {
        jit_count_hit();
        return SMM_OK;
    }
    const smm_status s = kernel_get(write, key, key_len, life, out);
    if (s == SMM_OK && life == JIT_RESIDENT)
        recent_add(*out);
    return s;
}

/* jit_kernel_get without the thread's recent kernels: the table, or a new kernel. */
static smm_status kernel_get(jit_writer write, const void *key, size_t key_len, jit_lifetime life,
                             const jit_kernel **out)
{
    *out = NULL;
    const uint64_t hash = hash_of(write, key, key_len);
    pthread_mutex_lock(&lock);
    jit_kernel *k = find(write, hash, key, key_len);
    if (k != NULL) {
        *out = take(k, life);
        pthread_mutex_unlock(&lock);
        return SMM_OK;
    }
    const int resident_full = life == JIT_RESIDENT && resident_count >= SMM_JIT_RESIDENT_KERNELS;
    if (resident_full)
        stats.failed++;
    pthread_mutex_unlock(&lock);
    if (resident_full)
        return SMM_ERR_OVERFLOW;

    jit_kernel *fresh = NULL;
    const smm_status s = build(write, key, key_len, hash, &fresh);
    jit_kernel *dropped = NULL;
    pthread_mutex_lock(&lock);
    if (s != SMM_OK) {
        stats.failed++;
        pthread_mutex_unlock(&lock);
        return s;
    }
    k = find(write, hash, key, key_len);
    if (k != NULL) { /* another thread made the same kernel meanwhile: keep its copy */
        *out = take(k, life);
        pthread_mutex_unlock(&lock);
        destroy(fresh);
        return SMM_OK;
    }
    if (life == JIT_RESIDENT && resident_count >= SMM_JIT_RESIDENT_KERNELS) {
        stats.failed++;
        pthread_mutex_unlock(&lock);
        destroy(fresh);
        return SMM_ERR_OVERFLOW;
    }
    stats.generated++;
    stats.kernels++;
    stats.code_bytes += (int64_t)fresh->code.mapped;
    if (in_table >= SMM_JIT_CACHE_KERNELS) {
        dropped = eviction_victim();
        if (dropped != NULL) {
            unlink_entry(dropped);
            stats.evicted++;
            stats.kernels--;
            stats.code_bytes -= (int64_t)dropped->code.mapped;
        }
    }
    if (in_table < SMM_JIT_CACHE_KERNELS || life == JIT_RESIDENT) {
        jit_kernel **head = bucket_of(hash);
        fresh->next = *head;
        *head = fresh;
        fresh->in_table = 1;
        in_table++;
    }
    fresh->last_use = ++tick;
    if (life == JIT_FOR_PLAN) {
        fresh->refs = 1;
    } else {
        fresh->resident = 1;
        resident_count++;
    }
    *out = fresh;
    pthread_mutex_unlock(&lock);
    if (dropped != NULL)
        destroy(dropped);
    return SMM_OK;
}

const void *jit_kernel_entry(const jit_kernel *k, int i)
{
    return k->code.exec + k->entries.at[i];
}

void jit_kernel_release(const jit_kernel *k)
{
    if (k == NULL)
        return;
    jit_kernel *m = (jit_kernel *)(uintptr_t)k;
    int free_it = 0;
    pthread_mutex_lock(&lock);
    if (--m->refs == 0 && !m->in_table && !m->resident) {
        free_it = 1;
        stats.kernels--;
        stats.code_bytes -= (int64_t)m->code.mapped;
    }
    pthread_mutex_unlock(&lock);
    if (free_it)
        destroy(m);
}

void smm_jit_get_stats(smm_jit_stats *out)
{
    if (out == NULL)
        return;
    pthread_mutex_lock(&lock);
    *out = stats;
    pthread_mutex_unlock(&lock);
    out->hits += atomic_load_explicit(&recent_hits, memory_order_relaxed);
}

smm_status smm_jit_status(void)
{
    return jit_code_status();
}
