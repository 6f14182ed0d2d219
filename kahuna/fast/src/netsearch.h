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

/* A search by time, run by `workers` threads at once, each on a tree of its own (root parallelism):
   they share a board of doubles where each publishes its iterations and its root's visits and
   rewards per action every NETSEARCH_CHECK_EVERY iterations, and any of them may raise the stop
   flag for all. Board layout: NETSEARCH_BOARD_HEADER doubles ([0] the stop flag), then a row of
   NETSEARCH_BOARD_ROW per worker ([0] iterations done, then NACTIONS visits, then NACTIONS rewards
   from the searching seat's side). The caller zeroes it. Plain aligned doubles written by one
   thread and read by others: a reader may see a row a few iterations old, which only delays a stop
   by one check (volatile keeps every read a real load).

   The search stops, whichever comes first, after `cfg->iterations` iterations of this worker,
   at `hard_seconds`, at `seconds` unless the root is close (the two most visited actions, summed
   over the workers, differ in mean value by less than `close`: thinking longer where it matters),
   or as soon as the most visited action cannot be overtaken by the iterations that the time left
   (to `seconds`, or to `hard_seconds` while the root is close) would give at the rate measured so
   far over all workers: the settled rule of netsearch_search with an estimated remainder. */
#define NETSEARCH_CHECK_EVERY 16
#define NETSEARCH_BOARD_HEADER 2
#define NETSEARCH_BOARD_ROW (1 + 2 * NACTIONS)

typedef struct {
    double seconds;      /* the budget, > 0 */
    double hard_seconds; /* the most a close decision may take, >= seconds */
    double close;        /* mean-value margin under which the root is close */
    volatile double *board;
    int workers, worker; /* how many share the board, and which row is this one's */
} NetTimer;

/* Returns the iterations this worker made (its root's visited actions in `out`), or -1 when out
   of memory (the stop flag is then raised for the others). */
int netsearch_timed(const Net *net, const View *v, MT *rng, const NetSearchConfig *cfg, const NetTimer *timer,
                    RootVisits *out);

#endif
