/* The search heuristic in C (heuristic.h says why it looks like this). */
#include "heuristic.h"

#include <math.h>

#define WIN_SCORE 100.0
static const double H_ROUND_POINTS[3] = {1.0, 2.0, 3.0};

const HWeights DEFAULT_HWEIGHTS = {1.0, 0.06, 0.45, 0.45, 0.12, 0.07, 0.08, 0.1, 1.5};

int hweights_valid(const HWeights *w) {
    const double each[] = {w->stone,  w->degree_bonus, w->fragile_loss, w->claim_threat, w->progress,
                           w->bridge, w->strike,       w->card,         w->scale};
    for (size_t k = 0; k < sizeof each / sizeof each[0]; k++)
        if (!isfinite(each[k])) return 0;
    return w->scale > 0.0;
}

typedef struct {
    double has[NI];
    double removal[NL];
} Belief;

static void belief_exact(const int8_t *hand, Belief *b) {
    for (int c = 0; c < NI; c++) b->has[c] = hand[c] ? 1.0 : 0.0;
    for (int l = 0; l < NL; l++) b->removal[l] = hand[LINE_A[l]] + hand[LINE_B[l]] >= 2 ? 1.0 : 0.0;
}

static double side_value(const KState *s, int p, const Belief *beliefs, const HWeights *w) {
    int o = 1 - p;
    const Belief *mine = &beliefs[p], *theirs = &beliefs[o];
    double exposure = w->fragile_loss * (s->to_move == p ? 0.5 : 1.0);
    int can_build = s->supply_bridges[p] > 0;
    double value = 0.0;
    for (int island = 0; island < NI; island++) {
        int owner = s->stones[island], need = CONTROL[island], have = s->counts[p][island];
        if (owner == p) {
            double stone = w->stone + w->degree_bonus * DEGREE[island];
            if (have == need) {
                double risk = 0.0;
                for (int k = 0; k < ISLAND_NLINES[island]; k++) {
                    int line = ISLAND_LINES[island][k];
                    if (s->bridges[line] == p && theirs->removal[line] > risk) risk = theirs->removal[line];
                }
                stone *= 1.0 - exposure * risk;
            }
            value += stone;
        } else if (owner == NOBODY && have) {
            value += w->progress * have / need;
            if (have == need - 1 && can_build && s->supply_stones[p]) {
                double chance = 0.0;
                for (int k = 0; k < ISLAND_NLINES[island]; k++) {
                    int other = NB_OTHER[island][k], line = NB_LINE[island][k];
                    if (s->bridges[line] == NOBODY) {
                        double m = chance;
                        if (mine->has[island] > m) m = mine->has[island];
                        if (mine->has[other] > m) m = mine->has[other];
                        chance = m;
                    }
                }
                if (chance != 0.0) {
                    int returned = s->counts[o][island];
                    value += w->claim_threat * chance * (1.0 + 0.15 * returned) * (1.0 + w->degree_bonus * DEGREE[island]);
                }
            }
        }
    }
    int on_board = BRIDGES - s->supply_bridges[p];
    value += w->bridge * on_board + w->card * s->hand_size[p];
    for (int line = 0; line < NL; line++)
        if (s->bridges[line] == o && mine->removal[line] != 0.0) value += w->strike * mine->removal[line];
    return value;
}

static double round_end(const KState *s, int seat) {
    int lead = stones_on_board(s, seat) - stones_on_board(s, 1 - seat);
    if (!lead) return 0.0;
    int left = s->deck_len;
    for (int c = 0; c < NI; c++) left += s->display[c];
    double closeness = 1.0 - (double)left / NCARDS;
    if (s->round == 3) return 0.0;
    return (lead > 0 ? 1.0 : -1.0) * H_ROUND_POINTS[s->round - 1] * closeness * closeness;
}

static double score(const KState *s, int seat, const Belief *beliefs, const HWeights *w) {
    if (s->phase == OVER) {
        if (s->winner < 0) return 0.0;
        return s->winner == seat ? WIN_SCORE : -WIN_SCORE;
    }
    double value = side_value(s, seat, beliefs, w) - side_value(s, 1 - seat, beliefs, w);
    int ps = 0, po = 0;
    for (int r = 0; r < ROUNDS; r++) {
        ps += s->points[seat][r];
        po += s->points[1 - seat][r];
    }
    return value + ps - po + round_end(s, seat);
}

static double win_probability(const KState *s, int seat, const Belief *beliefs, const HWeights *w) {
    if (s->phase == OVER) {
        if (s->winner < 0) return 0.5;
        return s->winner == seat ? 1.0 : 0.0;
    }
    return 1.0 / (1.0 + exp(-score(s, seat, beliefs, w) / w->scale));
}

double exact_win_probability(const KState *s, const HWeights *w) {
    Belief b[2];
    belief_exact(s->hands[0], &b[0]);
    belief_exact(s->hands[1], &b[1]);
    return win_probability(s, 0, b, w);
}
