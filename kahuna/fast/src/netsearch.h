/*
 * The network-guided ISMCTS (kahuna/ai/agents/netsearch.py is its Python twin): PUCT over
 * determinizations of a player view, each new node judged by the network (its value, and priors
 * for the tree actions from its last hidden layer, which the tree keeps so that an action another
 * world offers later gets its prior without a second forward pass), optionally mixed with the
 * heuristic playout at the leaves.
 *
 * It follows netsearch.py step by step with CPython's random stream, so for the same view,
 * network, settings and seed it gives the same root visits (tests/fast checks it). One search owns
 * its tree and its random generator and only reads the Net and the View, so searches on different
 * trees may run at once; nothing here touches Python.
 */
#ifndef KAHUNA_NETSEARCH_H
#define KAHUNA_NETSEARCH_H

#include "heuristic.h"
#include "ismcts.h"
#include "net.h"
#include "rng.h"
#include "view.h"

#define NETSEARCH_MAX_ITERATIONS 10000000

typedef struct {
    int iterations;
    double c;        /* the PUCT constant */
    double mix;      /* in [0, 1]: the weight of the heuristic playout against the network's value */
    int playout_turns;
    HWeights weights; /* the playout's heuristic */
    int stop;        /* stop once the most visited root action is settled */
    double share;    /* > 0: stop once it holds this share of the root's visits (from a quarter of the budget on) */
} NetSearchConfig;

/* Search from the view; the root's visited actions go to `out`. Returns 0, or -1 when out of memory. */
int netsearch_search(const Net *net, const View *v, MT *rng, const NetSearchConfig *cfg, RootVisits *out);

#endif
