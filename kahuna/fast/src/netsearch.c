/* The network-guided ISMCTS in C (netsearch.h says why it looks like this). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "netsearch.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "ismcts.h"
#include "observation.h"

#define NET_MAX_DEPTH 1024

/* A tree node: the action that led here, its prior at the parent, and its statistics from the
   side of the seat that chose it; `judged` indexes the node's network judgement, -1 until then. */
typedef struct {
    int32_t first_child, next_sibling;
    int32_t visits, judged;
    double reward, prior;
    uint8_t action;
} NNode;

/* The network's judgement of a node: the mover's value, the softmax's maximum logit and sum of
   exponentials over the actions of the judging world, and the sparse last hidden layer (at
   `offset` in the tree's pools) from which the prior of an action of another world is made. */
typedef struct {
    double value, top, total;
    int32_t offset, n;
} Judgement;

typedef struct {
    NNode *nodes;
    int32_t len, cap;
    Judgement *judged;
    int32_t judged_len, judged_cap;
    uint16_t *index;
    double *value;
    size_t pool_len, pool_cap;
} NTree;

static void ntree_free(NTree *t) {
    free(t->nodes);
    free(t->judged);
    free(t->index);
    free(t->value);
}

static int32_t ntree_new_node(NTree *t, int action, double prior) {
    if (t->len == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 4096;
        NNode *grown = (NNode *)realloc(t->nodes, (size_t)cap * sizeof(NNode));
        if (!grown) return -1;
        t->nodes = grown;
        t->cap = cap;
    }
    NNode *n = &t->nodes[t->len];
    n->first_child = n->next_sibling = -1;
    n->visits = 0;
    n->judged = -1;
    n->reward = 0.0;
    n->prior = prior;
    n->action = (uint8_t)action;
    return t->len++;
}

/* Room for one more judgement of up to `hidden` units; 0 when out of memory. */
static int ntree_reserve(NTree *t, int hidden) {
    if (t->judged_len == t->judged_cap) {
        int32_t cap = t->judged_cap ? t->judged_cap * 2 : 1024;
        Judgement *grown = (Judgement *)realloc(t->judged, (size_t)cap * sizeof(Judgement));
        if (!grown) return 0;
        t->judged = grown;
        t->judged_cap = cap;
    }
    if (t->pool_len + (size_t)hidden > t->pool_cap) {
        size_t cap = t->pool_cap ? t->pool_cap * 2 : 65536;
        while (cap < t->pool_len + (size_t)hidden) cap *= 2;
        uint16_t *index = (uint16_t *)realloc(t->index, cap * sizeof(uint16_t));
        if (!index) return 0;
        t->index = index;
        double *value = (double *)realloc(t->value, cap * sizeof(double));
        if (!value) return 0;
        t->value = value;
        t->pool_cap = cap;
    }
    return 1;
}

static inline Hidden judgement_hidden(const NTree *t, const Judgement *j) {
    Hidden h = {j->n, t->index + j->offset, t->value + j->offset};
    return h;
}

/* The prior of an action at a judged node: softmax with the judging world's normalisation. */
static double prior_of(const Net *net, const NTree *t, const Judgement *j, int action) {
    Hidden h = judgement_hidden(t, j);
    uint8_t one = (uint8_t)action;
    double logit;
    net_logits(net, &h, &one, 1, &logit);
    return exp(logit - j->top) / j->total;
}

/* Judge node `node` in world `s` (netsearch._judge): the network's value for the mover, and a
   child with its prior for every tree action. Returns the value, or -1.0 when out of memory. */
static double judge(const Net *net, NTree *t, int32_t node, const KState *s) {
    if (!ntree_reserve(t, net->hidden)) return -1.0;
    float obs[OBS_SIZE];
    encode_obs(s, s->to_move, obs);
    Judgement *j = &t->judged[t->judged_len];
    j->offset = (int32_t)t->pool_len;
    Hidden h = {0, t->index + t->pool_len, t->value + t->pool_len};
    j->value = net_forward(net, obs, &h);
    j->n = h.n;
    t->pool_len += (size_t)h.n;
    uint8_t legal[MAX_LEGAL];
    double logits[MAX_LEGAL];
    int n = tree_actions(s, legal);
    double top = 0.0, total = 0.0;
    net_logits(net, &h, legal, n, logits);
    for (int i = 0; i < n; i++)
        if (i == 0 || logits[i] > top) top = logits[i];
    for (int i = 0; i < n; i++) {
        logits[i] = exp(logits[i] - top);
        total += logits[i];
    }
    j->top = top;
    j->total = total;
    t->nodes[node].judged = t->judged_len++;
    for (int i = n - 1; i >= 0; i--) { /* pushed in front: the list ends up in tree-action order */
        int32_t child = ntree_new_node(t, legal[i], logits[i] / total);
        if (child < 0) return -1.0;
        t->nodes[child].next_sibling = t->nodes[node].first_child;
        t->nodes[node].first_child = child;
    }
    return t->judged[t->nodes[node].judged].value;
}

/* Whether the most visited root action holds at least `share` of the root's visits
   (netsearch._leading). */
static int leading(const NTree *t, double share) {
    long total = 0;
    int lead = 0;
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
        total += t->nodes[ch].visits;
        if (t->nodes[ch].visits > lead) lead = t->nodes[ch].visits;
    }
    return total > 0 && lead >= share * (double)total;
}

/* Whether the root's choice (most visits, ties to the lowest action) is fixed whatever the
   `remaining` iterations do (netsearch._settled): each gives one root child one visit at most, so
   the leader keeps its place when every other action, given all of them, stays behind it or ties
   it from a higher action; an action no world has offered yet counts as unvisited with any index,
   so the leader also needs more visits than remain. */
static int settled(const NTree *t, int remaining) {
    int lead = 0, leader = -1;
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
        const NNode *c = &t->nodes[ch];
        if (c->visits > lead || (c->visits == lead && c->visits && c->action < leader)) {
            lead = c->visits;
            leader = c->action;
        }
    }
    if (lead <= remaining) return 0;
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
        const NNode *c = &t->nodes[ch];
        int reach = c->visits + remaining;
        if (c->action != leader && (reach > lead || (reach == lead && c->action < leader))) return 0;
    }
    return 1;
}

/* One iteration (netsearch._iterate); returns 0, or -1 when out of memory. */
static int net_iterate(const Net *net, NTree *t, const View *v, MT *rng, const NetSearchConfig *cfg,
                       int32_t *slot) {
    KState s;
    determinize(v, rng, &s);
    int32_t path[NET_MAX_DEPTH];
    int8_t movers[NET_MAX_DEPTH];
    int depth = 0;
    int32_t node = 0;
    double result;
    uint8_t legal[MAX_LEGAL];
    for (;;) {
        if (s.phase == OVER) {
            result = s.winner < 0 ? 0.5 : (s.winner == 0 ? 1.0 : 0.0);
            break;
        }
        int mover = s.to_move;
        if (t->nodes[node].judged < 0) {
            double value = judge(net, t, node, &s);
            if (value < 0.0) return -1;
            result = mover == 0 ? value : 1.0 - value;
            if (cfg->mix > 0.0) {
                double played = playout(&s, rng, cfg->playout_turns, &cfg->weights);
                result = (1.0 - cfg->mix) * result + cfg->mix * played;
            }
            break;
        }
        /* The children by action (slot[] is all -1 between calls), adding those this world
           offers for the first time, with their priors from the node's judgement. */
        for (int32_t ch = t->nodes[node].first_child; ch >= 0; ch = t->nodes[ch].next_sibling)
            slot[t->nodes[ch].action] = ch;
        int n = tree_actions(&s, legal);
        const Judgement *j = &t->judged[t->nodes[node].judged];
        double scale = cfg->c * sqrt((double)(t->nodes[node].visits + 1));
        double first_play = j->value, best_value = -1.0;
        int32_t best = -1;
        int failed = 0;
        for (int i = 0; i < n; i++) {
            int32_t ch = slot[legal[i]];
            if (ch < 0) {
                double prior = prior_of(net, t, j, legal[i]);
                ch = ntree_new_node(t, legal[i], prior);
                if (ch < 0) {
                    failed = 1;
                    break;
                }
                t->nodes[ch].next_sibling = t->nodes[node].first_child;
                t->nodes[node].first_child = ch;
                slot[legal[i]] = ch;
            }
            const NNode *c = &t->nodes[ch];
            double q = c->visits ? c->reward / c->visits : first_play;
            double u = q + scale * c->prior / (1 + c->visits);
            if (u > best_value) {
                best_value = u;
                best = ch;
            }
        }
        for (int32_t ch = t->nodes[node].first_child; ch >= 0; ch = t->nodes[ch].next_sibling)
            slot[t->nodes[ch].action] = -1;
        if (failed) return -1;
        t->nodes[node].visits++;
        apply_rng(&s, t->nodes[best].action, rng);
        path[depth] = best;
        movers[depth] = (int8_t)mover;
        node = best;
        if (++depth >= NET_MAX_DEPTH) { /* a game has far fewer actions; a guard, not a rule */
            result = exact_win_probability(&s, &cfg->weights);
            break;
        }
    }
    t->nodes[node].visits++;
    for (int i = 0; i < depth; i++) t->nodes[path[i]].reward += movers[i] == 0 ? result : 1.0 - result;
    return 0;
}

/* The root's visited children into `out`; after one iteration (the root judged, nothing visited)
   the legal action of highest prior, ties to the lowest index, as netsearch.search plays it. */
static void root_visits(const Net *net, const NTree *t, const View *v, RootVisits *out) {
    out->n = 0;
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling)
        if (t->nodes[ch].visits) {
            out->action[out->n] = t->nodes[ch].action;
            out->visits[out->n++] = t->nodes[ch].visits;
        }
    if (!out->n) {
        KState root = v->base;
        derive(&root);
        uint8_t legal[MAX_LEGAL];
        int n = legal_actions(&root, legal);
        const Judgement *j = &t->judged[t->nodes[0].judged];
        double best = -1.0;
        for (int i = 0; i < n; i++) {
            double prior = prior_of(net, t, j, legal[i]);
            if (prior > best || (prior == best && legal[i] < out->action[0])) {
                best = prior;
                out->action[0] = legal[i];
            }
        }
        out->visits[0] = 1;
        out->n = 1;
    }
}

int netsearch_search(const Net *net, const View *v, MT *rng, const NetSearchConfig *cfg, RootVisits *out) {
    NTree t = {0};
    int32_t slot[NACTIONS];
    for (int a = 0; a < NACTIONS; a++) slot[a] = -1;
    int failed = ntree_new_node(&t, 0, 0.0) < 0;
    for (int done = 1; done <= cfg->iterations && !failed; done++) {
        failed = net_iterate(net, &t, v, rng, cfg, slot) < 0;
        if (!failed && cfg->stop && settled(&t, cfg->iterations - done)) break;
        if (!failed && cfg->share > 0.0 && 4L * done >= cfg->iterations && leading(&t, cfg->share)) break;
    }
    if (failed) {
        ntree_free(&t);
        return -1;
    }
    root_visits(net, &t, v, out);
    ntree_free(&t);
    return 0;
}

/* ------------------------------------------------------------------ the search by time */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* This worker's iterations and root statistics into its row of the board. */
static void publish(const NTree *t, volatile double *row, int done) {
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
        const NNode *c = &t->nodes[ch];
        row[1 + c->action] = (double)c->visits;
        row[1 + NACTIONS + c->action] = c->reward;
    }
    row[0] = (double)done;
}

/* Whether the workers' summed root makes it time to stop, `elapsed` seconds in (netsearch.h). */
static int time_to_stop(const NetTimer *timer, const NetSearchConfig *cfg, double elapsed) {
    if (elapsed >= timer->hard_seconds) return 1;
    double visits[NACTIONS] = {0}, reward[NACTIONS] = {0}, done = 0.0;
    for (int w = 0; w < timer->workers; w++) {
        const volatile double *row = timer->board + NETSEARCH_BOARD_HEADER + (size_t)w * NETSEARCH_BOARD_ROW;
        done += row[0];
        for (int a = 0; a < NACTIONS; a++) {
            visits[a] += row[1 + a];
            reward[a] += row[1 + NACTIONS + a];
        }
    }
    int leader = 0, second = -1;
    for (int a = 1; a < NACTIONS; a++)
        if (visits[a] > visits[leader]) leader = a;
    for (int a = 0; a < NACTIONS; a++)
        if (a != leader && (second < 0 || visits[a] > visits[second])) second = a;
    int close = second >= 0 && visits[second] > 0 &&
                fabs(reward[leader] / visits[leader] - reward[second] / visits[second]) < timer->close;
    if (elapsed >= timer->seconds && !close) return 1;
    double limit = close ? timer->hard_seconds : timer->seconds;
    double remaining = done / (elapsed > 1e-6 ? elapsed : 1e-6) * (limit - elapsed);
    double left_in_budget = (double)cfg->iterations * timer->workers - done;
    if (remaining > left_in_budget) remaining = left_in_budget;
    /* settled(): every other action, given all of the remaining iterations, stays behind the
       leader or ties it from a higher index; the leader also needs more than remain. */
    if (visits[leader] <= remaining) return 0;
    for (int a = 0; a < NACTIONS; a++) {
        double reach = visits[a] + remaining;
        if (a != leader && (reach > visits[leader] || (reach == visits[leader] && a < leader))) return 0;
    }
    return 1;
}

int netsearch_timed(const Net *net, const View *v, MT *rng, const NetSearchConfig *cfg, const NetTimer *timer,
                    RootVisits *out) {
    NTree t = {0};
    int32_t slot[NACTIONS];
    for (int a = 0; a < NACTIONS; a++) slot[a] = -1;
    volatile double *row = timer->board + NETSEARCH_BOARD_HEADER + (size_t)timer->worker * NETSEARCH_BOARD_ROW;
    double start = now_seconds();
    int done = 0;
    int failed = ntree_new_node(&t, 0, 0.0) < 0;
    while (!failed && done < cfg->iterations) {
        failed = net_iterate(net, &t, v, rng, cfg, slot) < 0;
        if (failed) break;
        done++;
        if (done % NETSEARCH_CHECK_EVERY && done < cfg->iterations) continue;
        publish(&t, row, done);
        if (timer->board[0] != 0.0) break;
        if (time_to_stop(timer, cfg, now_seconds() - start)) {
            timer->board[0] = 1.0;
            break;
        }
    }
    if (failed) {
        timer->board[0] = 1.0;
        ntree_free(&t);
        return -1;
    }
    root_visits(net, &t, v, out);
    ntree_free(&t);
    return done;
}
