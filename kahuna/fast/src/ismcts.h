/*
 * ISMCTS (kahuna/ai/agents/ismcts.py) in C: the playout policy, the actions a tree branches on, and the
 * search over determinizations of a player view. Every choice and floating-point step follows the
 * Python code with CPython's random stream, so for the same view, settings and seed the root
 * visits are the Python search's (tests/fast checks it). The tree's memory grows with the
 * iterations only; nothing here touches Python, so a caller may run it without the GIL.
 */
#ifndef KAHUNA_ISMCTS_H
#define KAHUNA_ISMCTS_H

#include "heuristic.h"
#include "rng.h"
#include "rules.h"
#include "view.h"

#define ISMCTS_MAX_ITERATIONS 50000000 /* also the cap of a search on a time budget */

typedef struct {
    int iterations;  /* the budget when seconds is 0 */
    double seconds;  /* > 0: search this long instead (at least one iteration) */
    double c;        /* exploration constant */
    int playout_turns;
    HWeights weights;
} IsmctsConfig;

/* What a search found at the root: the visits of each root action, in the tree's child order. */
typedef struct {
    int n;
    uint8_t action[MAX_LEGAL];
    int32_t visits[MAX_LEGAL];
} RootVisits;

/* Legal actions worth a branch: face-down discards only with a full hand (ismcts.tree_actions). */
int tree_actions(const KState *s, uint8_t *out);
/* Play ``turns`` turns of the playout policy from ``s`` (changed), then seat 0's win probability
   by the heuristic (ismcts._playout). */
double playout(KState *s, MT *rng, int turns, const HWeights *w);

/* Search from the view; returns the iterations made, or -1 when out of memory. */
int ismcts_search(const View *v, MT *rng, const IsmctsConfig *cfg, RootVisits *out);

#endif
