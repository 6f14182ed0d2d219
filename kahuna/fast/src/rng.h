/*
 * CPython's random number generator in C: the Mersenne Twister (MT19937) with CPython's seeding,
 * random(), _randbelow (rejection on getrandbits) and shuffle, so that the same seed gives the
 * same games and the same search choices as random.Random in Python. The draw of one word is
 * inline (every playout step takes one); regenerating the 624 words is not.
 */
#ifndef KAHUNA_RNG_H
#define KAHUNA_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t mt[624];
    int index; /* the next word; 624: regenerate first */
} MT;

/* random.Random(n) for 0 <= n < 2**64. */
void mt_seed_u64(MT *r, uint64_t n);
/* Regenerate the 624 words (called by mt_next when they are used up). */
void mt_twist(MT *r);
/* random.shuffle of n small integers. */
void mt_shuffle(MT *r, int8_t *x, int n);

/* The next 32-bit word (getrandbits(32)). */
static inline uint32_t mt_next(MT *r) {
    if (r->index >= 624) mt_twist(r);
    uint32_t y = r->mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.random(). */
static inline double mt_random(MT *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* Random._randbelow_with_getrandbits(n) for 1 <= n < 2**31. */
static inline int mt_below(MT *r, int n) {
    if (n <= 0) return 0; /* never asked by the rules; a guard against undefined shifts */
    int k = 0;
    while ((n >> k) != 0) k++;
    uint32_t v;
    do {
        v = mt_next(r) >> (32 - k);
    } while (v >= (uint32_t)n);
    return (int)v;
}

#endif
