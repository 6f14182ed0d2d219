/* The policy/value network in C (net.h says why it looks like this). */
#include "net.h"

#include <math.h>
#include <stdlib.h>

#include "observation.h"
#include "rules.h"

/* Vectors of doubles (GCC and clang extensions, as the rest of the core's builtins require):
   element-wise arithmetic, so no sum is reordered. */
typedef double v2d __attribute__((vector_size(16), aligned(8), may_alias));
typedef double v4d __attribute__((vector_size(32), aligned(8), may_alias));

/* The one layer kernel, for vectors of VEC (two or four doubles): out[j] = b[j] + Σ x[k] · w[rows[k]][j]
   over k in order, for j < padded: a layer before its ReLU. A block of eight vectors of units
   stays in registers (eight independent sums, enough to keep the adder busy) while the inputs are
   added in order: the same sums as adding row after row, whatever the width. */
#define NET_LAYER_KERNEL(NAME, VEC, ATTRIBUTES)                                                                \
    ATTRIBUTES static void NAME(const double *w, const double *b, int padded, const int16_t *rows, const double *x, \
                                int n, double *out) {                                                         \
        const int block = 8 * (int)(sizeof(VEC) / sizeof(double));                                            \
        for (int j = 0; j < padded; j += block) {                                                             \
            const VEC *bias = (const VEC *)(b + j);                                                           \
            VEC a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3], a4 = bias[4], a5 = bias[5],           \
                a6 = bias[6], a7 = bias[7];                                                                   \
            for (int i = 0; i < n; i++) {                                                                     \
                const VEC *row = (const VEC *)(w + (size_t)rows[i] * padded + j);                             \
                double xi = x[i];                                                                             \
                a0 += xi * row[0];                                                                            \
                a1 += xi * row[1];                                                                            \
                a2 += xi * row[2];                                                                            \
                a3 += xi * row[3];                                                                            \
                a4 += xi * row[4];                                                                            \
                a5 += xi * row[5];                                                                            \
                a6 += xi * row[6];                                                                            \
                a7 += xi * row[7];                                                                            \
            }                                                                                                 \
            VEC *o = (VEC *)(out + j);                                                                        \
            o[0] = a0, o[1] = a1, o[2] = a2, o[3] = a3, o[4] = a4, o[5] = a5, o[6] = a6, o[7] = a7;           \
        }                                                                                                     \
    }

/* Pairs everywhere (SSE2 on every x86-64, NEON on arm64); fours with AVX2 on an x86-64 that has it. */
NET_LAYER_KERNEL(net_layer_pairs, v2d, )
#if defined(__x86_64__) && defined(__GNUC__)
#define NET_AVX2 1
NET_LAYER_KERNEL(net_layer_fours, v4d, __attribute__((target("avx2"))))
#else
#define NET_AVX2 0
#endif

static void net_layer(const Net *net, const double *w, const double *b, const int16_t *rows, const double *x, int n,
                      double *out) {
#if NET_AVX2
    if (net->wide) {
        net_layer_fours(w, b, net->padded, rows, x, n, out);
        return;
    }
#endif
    net_layer_pairs(w, b, net->padded, rows, x, n, out);
}

int net_init(Net *net, int hidden, const float *w1, const float *b1, const float *w2, const float *b2,
             const float *wp, const float *bp, const float *wv, float bv, int wide) {
    int padded = (hidden + NET_PAD - 1) / NET_PAD * NET_PAD;
    size_t total = (size_t)OBS_SIZE * padded + 2 * (size_t)padded + (size_t)hidden * padded +
                   (size_t)NACTIONS * hidden + NACTIONS + hidden;
    net->block = (double *)calloc(total, sizeof(double));
    if (!net->block) return -1;
    net->hidden = hidden;
    net->padded = padded;
#if NET_AVX2
    net->wide = wide && __builtin_cpu_supports("avx2");
#else
    net->wide = 0;
    (void)wide;
#endif
    net->w1 = net->block;
    net->b1 = net->w1 + (size_t)OBS_SIZE * padded;
    net->w2 = net->b1 + padded;
    net->b2 = net->w2 + (size_t)hidden * padded;
    net->wpt = net->b2 + padded;
    net->bp = net->wpt + (size_t)NACTIONS * hidden;
    net->wv = net->bp + NACTIONS;
    for (int i = 0; i < OBS_SIZE; i++)
        for (int j = 0; j < hidden; j++) net->w1[(size_t)i * padded + j] = w1[(size_t)i * hidden + j];
    for (int i = 0; i < hidden; i++)
        for (int j = 0; j < hidden; j++) net->w2[(size_t)i * padded + j] = w2[(size_t)i * hidden + j];
    for (int j = 0; j < hidden; j++) {
        net->b1[j] = b1[j];
        net->b2[j] = b2[j];
        net->wv[j] = wv[j];
        for (int a = 0; a < NACTIONS; a++) net->wpt[(size_t)a * hidden + j] = wp[(size_t)j * NACTIONS + a];
    }
    for (int a = 0; a < NACTIONS; a++) net->bp[a] = bp[a];
    net->bv = bv;
    return 0;
}

void net_free(Net *net) {
    free(net->block);
    net->block = NULL;
}

double net_forward(const Net *net, const float *obs, Hidden *out) {
    int hidden = net->hidden;
    double acc[NET_MAX_HIDDEN], x[NET_MAX_HIDDEN];
    int16_t rows[NET_MAX_HIDDEN];
    /* The non-zero entries, gathered without branches (written always, kept when non-zero). */
    int n = 0;
    for (int i = 0; i < OBS_SIZE; i++) {
        rows[n] = (int16_t)i;
        x[n] = (double)obs[i];
        n += obs[i] != 0.0f;
    }
    net_layer(net, net->w1, net->b1, rows, x, n, acc);
    n = 0;
    for (int j = 0; j < hidden; j++) {
        rows[n] = (int16_t)j;
        x[n] = acc[j];
        n += acc[j] > 0.0;
    }
    net_layer(net, net->w2, net->b2, rows, x, n, acc);
    int n2 = 0;
    double v = net->bv;
    for (int j = 0; j < hidden; j++) {
        out->index[n2] = (uint16_t)j;
        out->value[n2] = acc[j];
        n2 += acc[j] > 0.0;
    }
    out->n = n2;
    for (int k = 0; k < n2; k++) v += out->value[k] * net->wv[out->index[k]];
    return 1.0 / (1.0 + exp(-(v > -60.0 ? v : -60.0)));
}

/* Each logit is a sum in unit order; four are summed at a time so that the processor overlaps
   their additions. */
void net_logits(const Net *net, const Hidden *h, const uint8_t *actions, int n, double *out) {
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const double *r0 = net->wpt + (size_t)actions[i] * net->hidden;
        const double *r1 = net->wpt + (size_t)actions[i + 1] * net->hidden;
        const double *r2 = net->wpt + (size_t)actions[i + 2] * net->hidden;
        const double *r3 = net->wpt + (size_t)actions[i + 3] * net->hidden;
        double s0 = net->bp[actions[i]], s1 = net->bp[actions[i + 1]];
        double s2 = net->bp[actions[i + 2]], s3 = net->bp[actions[i + 3]];
        for (int k = 0; k < h->n; k++) {
            double x = h->value[k];
            int j = h->index[k];
            s0 += x * r0[j];
            s1 += x * r1[j];
            s2 += x * r2[j];
            s3 += x * r3[j];
        }
        out[i] = s0;
        out[i + 1] = s1;
        out[i + 2] = s2;
        out[i + 3] = s3;
    }
    for (; i < n; i++) {
        const double *row = net->wpt + (size_t)actions[i] * net->hidden;
        double acc = net->bp[actions[i]];
        for (int k = 0; k < h->n; k++) acc += h->value[k] * row[h->index[k]];
        out[i] = acc;
    }
}
