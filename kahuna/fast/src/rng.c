/* CPython's Mersenne Twister: seeding, regeneration and shuffle (rng.h says why). */
#include "rng.h"

void mt_twist(MT *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    uint32_t *mt = r->mt;
    int kk;
    for (kk = 0; kk < 624 - 397; kk++) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    for (; kk < 623; kk++) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
    mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 0x1U];
    r->index = 0;
}

static void mt_init_genrand(MT *r, uint32_t s) {
    uint32_t *mt = r->mt;
    mt[0] = s;
    for (int i = 1; i < 624; i++) mt[i] = (1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i);
    r->index = 624;
}

static void mt_init_by_array(MT *r, const uint32_t *key, size_t n) {
    uint32_t *mt = r->mt;
    size_t i = 1, j = 0, k;
    mt_init_genrand(r, 19650218U);
    k = (624 > n ? 624 : n);
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= 624) {
            mt[0] = mt[623];
            i = 1;
        }
        if (j >= n) j = 0;
    }
    for (k = 623; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= 624) {
            mt[0] = mt[623];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
}

void mt_seed_u64(MT *r, uint64_t n) {
    uint32_t key[2] = {(uint32_t)(n & 0xffffffffU), (uint32_t)(n >> 32)};
    mt_init_by_array(r, key, key[1] ? 2 : 1);
}

void mt_shuffle(MT *r, int8_t *x, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = mt_below(r, i + 1);
        int8_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}
