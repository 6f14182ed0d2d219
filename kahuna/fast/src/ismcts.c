/* ISMCTS in C (ismcts.h says why it looks like this). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "ismcts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ playout */

static inline int action_kind_ends_turn(int a) { return a >= TAKE_DISPLAY_BASE; }

static int playout_action(const KState *s, MT *rng) {
    uint8_t legal[MAX_LEGAL], builds[MAX_LEGAL], endings[MAX_LEGAL], discards[MAX_LEGAL], removals[MAX_LEGAL];
    int n = legal_actions(s, legal), nb = 0, ne = 0, nd = 0, nr = 0;
    int seat = s->to_move, other = 1 - seat;
    for (int i = 0; i < n; i++) {
        int a = legal[i];
        if (a < REMOVE_BASE) {
            int line = a >> 1;
            int ends[2] = {LINE_A[line], LINE_B[line]};
            for (int k = 0; k < 2; k++)
                if (s->stones[ends[k]] == NOBODY && s->counts[seat][ends[k]] + 1 >= CONTROL[ends[k]]) return a;
            builds[nb++] = (uint8_t)a;
        } else if (a < DISCARD_BASE) {
            int line = (a - (a >= REPLACE_BASE ? REPLACE_BASE : REMOVE_BASE)) / 3;
            int ends[2] = {LINE_A[line], LINE_B[line]};
            for (int k = 0; k < 2; k++)
                if (s->stones[ends[k]] == other && s->counts[other][ends[k]] == CONTROL[ends[k]]) return a;
            removals[nr++] = (uint8_t)a;
        } else if (a < TAKE_DISPLAY_BASE) {
            discards[nd++] = (uint8_t)a;
        } else {
            endings[ne++] = (uint8_t)a;
        }
    }
    if (!n) return -1;
    double roll = mt_random(rng);
    if (nb && roll < 0.45) return builds[mt_below(rng, nb)];
    if (nr && roll < 0.5) return removals[mt_below(rng, nr)];
    uint8_t draws[MAX_LEGAL];
    int ndr = 0;
    for (int i = 0; i < ne; i++)
        if (endings[i] != A_PASS) draws[ndr++] = endings[i];
    if (ndr) return draws[mt_below(rng, ndr)];
    if (ne) return endings[mt_below(rng, ne)];
    return discards[mt_below(rng, nd)];
}

double playout(KState *s, MT *rng, int turns, const HWeights *w) {
    int ended = 0;
    while (s->phase != OVER && ended < turns) {
        int a = playout_action(s, rng);
        if (a < 0) break;
        apply_rng(s, a, rng);
        if (action_kind_ends_turn(a)) ended++;
    }
    return exact_win_probability(s, w);
}

int tree_actions(const KState *s, uint8_t *out) {
    uint8_t legal[MAX_LEGAL];
    int n = legal_actions(s, legal), k = 0;
    int full = s->hand_size[s->to_move] >= HAND_LIMIT;
    for (int i = 0; i < n; i++)
        if (!(legal[i] >= DISCARD_BASE && legal[i] < TAKE_DISPLAY_BASE) || full) out[k++] = legal[i];
    if (!k && n > 0) {
        memcpy(out, legal, (size_t)n);
        k = n;
    }
    return k;
}

/* ------------------------------------------------------------------ the tree */

typedef struct {
    int32_t first_child, next_sibling;
    int32_t visits, available;
    double reward;
    uint8_t action;
} Node;

typedef struct {
    Node *nodes;
    int32_t len, cap;
} Tree;

static int32_t tree_new_node(Tree *t, int action) {
    if (t->len == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 1024;
        Node *grown = (Node *)realloc(t->nodes, (size_t)cap * sizeof(Node));
        if (!grown) return -1;
        t->nodes = grown;
        t->cap = cap;
    }
    Node *n = &t->nodes[t->len];
    n->first_child = n->next_sibling = -1;
    n->visits = n->available = 0;
    n->reward = 0.0;
    n->action = (uint8_t)action;
    return t->len++;
}

static int32_t find_child(const Tree *t, int32_t node, int action) {
    for (int32_t c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling)
        if (t->nodes[c].action == action) return c;
    return -1;
}

typedef struct {
    int32_t node;
    int8_t mover;
} Step;

/* One iteration; returns 0, or -1 when out of memory. */
static int iterate(Tree *t, const View *v, MT *rng, double c, int playout_turns, const HWeights *w) {
    KState s;
    determinize(v, rng, &s);
    Step path[1024];
    int depth = 0;
    int32_t node = 0;
    uint8_t legal[MAX_LEGAL];
    int32_t kids[MAX_LEGAL];
    while (s.phase != OVER) {
        int mover = s.to_move;
        int n = tree_actions(&s, legal);
        if (!n) break; /* impossible in a real game; checked inputs never get here */
        int untried[MAX_LEGAL], nu = 0;
        for (int i = 0; i < n; i++) {
            kids[i] = find_child(t, node, legal[i]);
            if (kids[i] < 0) untried[nu++] = legal[i];
            else t->nodes[kids[i]].available++;
        }
        if (nu) {
            int action = untried[mt_below(rng, nu)];
            int32_t child = tree_new_node(t, action);
            if (child < 0) return -1;
            t->nodes[child].available = 1;
            t->nodes[child].next_sibling = t->nodes[node].first_child;
            t->nodes[node].first_child = child;
            apply_rng(&s, action, rng);
            path[depth].node = child;
            path[depth].mover = (int8_t)mover;
            depth++;
            break;
        }
        double best_value = -1.0;
        int best = 0;
        for (int i = 0; i < n; i++) {
            const Node *ch = &t->nodes[kids[i]];
            double value = ch->reward / ch->visits + c * sqrt(log((double)ch->available) / ch->visits);
            if (value > best_value) {
                best_value = value;
                best = i;
            }
        }
        apply_rng(&s, legal[best], rng);
        node = kids[best];
        path[depth].node = node;
        path[depth].mover = (int8_t)mover;
        depth++;
        if (depth >= 1024) break; /* a game has far fewer actions; a guard, not a rule */
    }
    double result = playout(&s, rng, playout_turns, w);
    for (int i = 0; i < depth; i++) {
        Node *n = &t->nodes[path[i].node];
        n->visits++;
        n->reward += path[i].mover == 0 ? result : 1.0 - result;
    }
    return 0;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ismcts_search(const View *v, MT *rng, const IsmctsConfig *cfg, RootVisits *out) {
    Tree t = {NULL, 0, 0};
    if (tree_new_node(&t, 0) < 0) return -1;
    int done = 0;
    double deadline = cfg->seconds > 0 ? now_seconds() + cfg->seconds : 0.0;
    for (;;) {
        if (cfg->seconds <= 0) {
            if (done >= cfg->iterations) break;
        } else if ((done && now_seconds() >= deadline) || done >= ISMCTS_MAX_ITERATIONS) {
            break;
        }
        if (iterate(&t, v, rng, cfg->c, cfg->playout_turns, &cfg->weights) < 0) {
            free(t.nodes);
            return -1;
        }
        done++;
    }
    out->n = 0;
    for (int32_t ch = t.nodes[0].first_child; ch >= 0; ch = t.nodes[ch].next_sibling) {
        out->action[out->n] = t.nodes[ch].action;
        out->visits[out->n++] = t.nodes[ch].visits;
    }
    free(t.nodes);
    return done;
}
