/*
 * The policy/value network (kahuna/ai/agents/net.py: two ReLU layers, a policy head of NACTIONS logits,
 * a value head) in C, for the network search.
 *
 *  - the weights are copied once into a Net, as doubles (each exactly its float32), so a search
 *    converts nothing; every product and sum is done in double in a fixed order (inputs, then
 *    hidden units, by increasing index), which Network.hidden and Network.logit repeat in Python,
 *    so both give the same numbers bit for bit (setup.py forbids fused multiply-adds);
 *  - the forward pass is sparse: zero inputs and units that the ReLU zeroed are skipped (adding
 *    0·w changes nothing), each layer adds whole rows into blocks of units held in vector
 *    registers (rows padded with zeros to NET_PAD), and a policy logit is computed only for the
 *    actions asked, from the last hidden layer, which the caller may keep.
 * A Net is read-only once made: any number of searches may use it at once.
 */
#ifndef KAHUNA_NET_H
#define KAHUNA_NET_H

#include <stdint.h>

#define NET_MAX_HIDDEN 1024 /* bounds the forward pass's stack arrays */
#define NET_PAD 32          /* rows are padded to a multiple of the widest layer block */

typedef struct {
    int hidden; /* width of both hidden layers */
    int padded; /* hidden rounded up to NET_PAD: the row length of w1 and w2 */
    int wide;   /* whether the layers use the AVX2 kernel (four doubles per vector, not two) */
    /* The weights as doubles (each float32 exactly), zero-padded rows: */
    double *w1;           /* [OBS_SIZE][padded] */
    double *b1, *w2, *b2; /* [padded], [hidden][padded], [padded] */
    double *wpt;          /* the policy head transposed: [NACTIONS][hidden] */
    double *bp, *wv;      /* [NACTIONS], [hidden] */
    double bv;
    double *block; /* the one allocation holding every array */
} Net;

/* The last hidden layer of a forward pass, kept sparse: its non-zero units by increasing index. */
typedef struct {
    int n;
    uint16_t *index;
    double *value;
} Hidden;

/* A network from float32 arrays of the shapes of kahuna.ai.agents.net.LAYERS for a hidden width of
   1..NET_MAX_HIDDEN; ``wide`` allows the AVX2 kernel where the processor has it. Returns 0, or -1
   when out of memory. net_free releases it. */
int net_init(Net *net, int hidden, const float *w1, const float *b1, const float *w2, const float *b2,
             const float *wp, const float *bp, const float *wv, float bv, int wide);
void net_free(Net *net);

/* The forward pass up to the last hidden layer (written to `out`, whose arrays hold `hidden`
   entries) and the value head: returns the mover's win probability. */
double net_forward(const Net *net, const float *obs, Hidden *out);
/* The policy logits of `n` actions from a last hidden layer. */
void net_logits(const Net *net, const Hidden *h, const uint8_t *actions, int n, double *out);

#endif
