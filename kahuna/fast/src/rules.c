/* The rules of Kahuna in C (rules.h says why it looks like this). */
#include "rules.h"

#include <string.h>

int board_ready = 0;
int8_t LINE_A[NL], LINE_B[NL];
int8_t CONTROL[NI], DEGREE[NI];
int8_t ISLAND_LINES[NI][8];
int8_t ISLAND_NLINES[NI];
int8_t NB_OTHER[NI][8], NB_LINE[NI][8];
uint32_t CARD_LINES[NI];

const char *configure_board(const int8_t *flat, const int8_t *ctl, const int8_t *deg) {
    int8_t nlines[NI] = {0};
    for (int l = 0; l < NL; l++) {
        int a = flat[2 * l], b = flat[2 * l + 1];
        if (a < 0 || b >= NI || a >= b) return "lines must be pairs (a, b) of islands with a < b";
        if (nlines[a] >= 8 || nlines[b] >= 8) return "an island has more than 8 lines";
        nlines[a]++;
        nlines[b]++;
    }
    for (int i = 0; i < NI; i++) {
        if (ctl[i] < 1 || ctl[i] > 8) return "control must be 1-8";
        if (nlines[i] != deg[i]) return "degree does not match the lines";
    }
    memset(ISLAND_NLINES, 0, sizeof ISLAND_NLINES);
    memset(CARD_LINES, 0, sizeof CARD_LINES);
    for (int l = 0; l < NL; l++) {
        LINE_A[l] = flat[2 * l];
        LINE_B[l] = flat[2 * l + 1];
        CARD_LINES[LINE_A[l]] |= 1U << l;
        CARD_LINES[LINE_B[l]] |= 1U << l;
        int ends[2] = {LINE_A[l], LINE_B[l]};
        for (int k = 0; k < 2; k++) ISLAND_LINES[ends[k]][ISLAND_NLINES[ends[k]]++] = (int8_t)l;
    }
    for (int i = 0; i < NI; i++) {
        CONTROL[i] = ctl[i];
        DEGREE[i] = deg[i];
        int n = ISLAND_NLINES[i];
        for (int k = 0; k < n; k++) {
            int l = ISLAND_LINES[i][k];
            NB_OTHER[i][k] = LINE_A[l] == i ? LINE_B[l] : LINE_A[l];
            NB_LINE[i][k] = (int8_t)l;
        }
        for (int x = 1; x < n; x++) /* insertion sort by neighbour */
            for (int y = x; y > 0 && NB_OTHER[i][y - 1] > NB_OTHER[i][y]; y--) {
                int8_t t = NB_OTHER[i][y];
                NB_OTHER[i][y] = NB_OTHER[i][y - 1];
                NB_OTHER[i][y - 1] = t;
                t = NB_LINE[i][y];
                NB_LINE[i][y] = NB_LINE[i][y - 1];
                NB_LINE[i][y - 1] = t;
            }
    }
    board_ready = 1;
    return NULL;
}

void derive(KState *s) {
    memset(s->counts, 0, sizeof s->counts);
    s->owned[0] = s->owned[1] = 0;
    for (int l = 0; l < NL; l++) {
        int o = s->bridges[l];
        if (o == 0 || o == 1) {
            s->counts[o][LINE_A[l]]++;
            s->counts[o][LINE_B[l]]++;
            s->owned[o] |= 1U << l;
        }
    }
    for (int p = 0; p < 2; p++) {
        int n = 0;
        for (int c = 0; c < NI; c++) n += s->hands[p][c];
        s->hand_size[p] = (int8_t)n;
    }
}

static int count_of(const int8_t *a, int n, int v) {
    int k = 0;
    for (int i = 0; i < n; i++) k += a[i] == v;
    return k;
}

const char *check_state(const KState *s) {
    if (s->round < 1 || s->round > ROUNDS) return "round must be 1-3";
    if (s->phase < PLAY || s->phase > OVER) return "phase must be 0-2";
    if (s->to_move < 0 || s->to_move > 1) return "to_move must be 0 or 1";
    if (s->declined < 0 || s->declined > 1 || s->v_nbes < 0 || s->v_nbes > 1 || s->v_ror < 0 || s->v_ror > 1)
        return "flags must be 0 or 1";
    if (s->final_turns < 0 || s->final_turns > 2) return "final_turns must be 0-2";
    if ((s->phase == OVER) != (s->reason != R_NONE)) return "a result is given exactly when the game is over";
    if (s->reason < 0 || s->reason >= R_COUNT) return "bad result reason";
    if (s->winner < -1 || s->winner > 1) return "winner must be -1, 0 or 1";
    if (s->phase == FINAL && s->round != ROUNDS) return "the final turns come after round 3";
    if ((s->phase == FINAL) != (s->final_turns > 0)) return "final_turns is 1 or 2 exactly in the final turns";
    for (int l = 0; l < NL; l++)
        if (s->bridges[l] < -1 || s->bridges[l] > 1) return "bridge owners must be -1, 0 or 1";
    for (int i = 0; i < NI; i++)
        if (s->stones[i] < -1 || s->stones[i] > 1) return "stone owners must be -1, 0 or 1";
    if (s->deck_len < 0 || s->deck_len > NCARDS) return "deck_len out of range";
    int all[NI] = {0};
    for (int i = 0; i < NCARDS; i++) {
        int c = s->deck[i];
        if (i < s->deck_len) {
            if (c < 0 || c >= NI) return "deck cards must be islands 0-11";
            all[c]++;
        } else if (c != 0) {
            return "deck entries beyond deck_len must be 0";
        }
    }
    int takeable = s->deck_len;
    for (int c = 0; c < NI; c++) takeable += s->display[c] > 0;
    if (s->phase == PLAY && !takeable) return "a round in play has cards to take";
    for (int c = 0; c < NI; c++) {
        int parts[8] = {s->hands[0][c], s->hands[1][c], s->display[c], s->discard_up[c],
                        s->discard_down[0][c], s->discard_down[1][c], s->known[0][c], s->known[1][c]};
        for (int k = 0; k < 8; k++)
            if (parts[k] < 0 || parts[k] > PER_ISLAND) return "card counts must be 0-2";
        all[c] += parts[0] + parts[1] + parts[2] + parts[3] + parts[4] + parts[5];
        if (all[c] != PER_ISLAND) return "every island must have exactly two cards";
        if (s->known[0][c] > s->hands[0][c] || s->known[1][c] > s->hands[1][c]) return "known cards must be held";
    }
    for (int p = 0; p < 2; p++) {
        for (int r = 0; r < ROUNDS; r++)
            if (s->points[p][r] < 0 || s->points[p][r] > STONES) return "points out of range";
        if (count_of(s->bridges, NL, p) + s->supply_bridges[p] != BRIDGES) return "bridges do not add up";
        if (count_of(s->stones, NI, p) + s->supply_stones[p] != STONES) return "stones do not add up";
    }
    return NULL;
}

int check_state_derived(const KState *s) {
    for (int p = 0; p < 2; p++) {
        if (s->hand_size[p] > HAND_LIMIT) return 0;
        for (int i = 0; i < NI; i++)
            if (s->stones[i] == p && s->counts[p][i] < CONTROL[i]) return 0;
    }
    return 1;
}

static inline int may_build_on(const KState *s, int line, int seat) {
    if (s->bridges[line] != NOBODY) return 0;
    if (s->v_nbes) {
        int other = 1 - seat;
        if (s->stones[LINE_A[line]] == other || s->stones[LINE_B[line]] == other) return 0;
    }
    return 1;
}

static inline int may_replace(const KState *s, int line, int seat) {
    if (!s->v_nbes) return 1;
    int other = 1 - seat;
    int ends[2] = {LINE_A[line], LINE_B[line]};
    for (int k = 0; k < 2; k++) {
        int i = ends[k];
        if (s->stones[i] == other && s->counts[other][i] - 1 >= CONTROL[i]) return 0;
    }
    return 1;
}

static inline int build_index(int card, int line) { return 2 * line + (LINE_A[line] == card ? 0 : 1); }

int legal_actions(const KState *s, uint8_t *out) {
    int n = 0;
    if (s->phase == OVER) return 0;
    int seat = s->to_move, other = 1 - seat;
    const int8_t *hand = s->hands[seat];
    uint32_t touched = 0; /* lines touching an island of a held card */
    for (int c = 0; c < NI; c++)
        if (hand[c]) {
            out[n++] = (uint8_t)(DISCARD_BASE + c);
            touched |= CARD_LINES[c];
        }
    if (s->supply_bridges[seat]) {
        uint32_t taken = s->owned[0] | s->owned[1];
        for (int c = 0; c < NI; c++) {
            if (!hand[c] || !(CARD_LINES[c] & ~taken)) continue;
            for (int k = 0; k < ISLAND_NLINES[c]; k++) {
                int line = NB_LINE[c][k];
                if (!(taken >> line & 1U) && (!s->v_nbes || may_build_on(s, line, seat)))
                    out[n++] = (uint8_t)build_index(c, line);
            }
        }
    }
    if (s->phase == PLAY) {
        if (s->hand_size[seat] < HAND_LIMIT) {
            if (s->deck_len) out[n++] = A_TAKE_DECK;
            for (int c = 0; c < NI; c++)
                if (s->display[c]) out[n++] = (uint8_t)(TAKE_DISPLAY_BASE + c);
        }
        if (!s->declined) out[n++] = A_PASS;
    } else {
        out[n++] = A_END;
    }
    uint32_t targets = touched & s->owned[other];
    if (s->hand_size[seat] >= 2 && targets) {
        int replace = s->v_ror && s->supply_bridges[seat] > 0;
        while (targets) {
            int line = __builtin_ctz(targets);
            targets &= targets - 1;
            int na = hand[LINE_A[line]], nb = hand[LINE_B[line]];
            int extra = replace && may_replace(s, line, seat);
            int base = REMOVE_BASE + 3 * line, rbase = REPLACE_BASE + 3 * line;
            if (na >= 2) {
                out[n++] = (uint8_t)base;
                if (extra) out[n++] = (uint8_t)rbase;
            }
            if (na && nb) {
                out[n++] = (uint8_t)(base + 1);
                if (extra) out[n++] = (uint8_t)(rbase + 1);
            }
            if (nb >= 2) {
                out[n++] = (uint8_t)(base + 2);
                if (extra) out[n++] = (uint8_t)(rbase + 2);
            }
        }
    }
    return n;
}

int is_legal(const KState *s, int action) {
    uint8_t buf[MAX_LEGAL];
    int n = legal_actions(s, buf);
    for (int i = 0; i < n; i++)
        if (buf[i] == action) return 1;
    return 0;
}

static inline int ends_round(const KState *s, int action) {
    if (action < TAKE_DISPLAY_BASE || action >= TAKE_DISPLAY_BASE + NI || s->deck_len) return 0;
    int total = 0;
    for (int c = 0; c < NI; c++) total += s->display[c];
    return total == 1;
}

int needs_reshuffle(const KState *s, int action) { return s->round < ROUNDS && ends_round(s, action); }

void discard_pile(const KState *s, int *pile) {
    for (int c = 0; c < NI; c++) pile[c] = s->discard_up[c] + s->discard_down[0][c] + s->discard_down[1][c];
}

/* The reshuffle order the referee's RNG would draw: the pile in card order, shuffled. */
static int random_order(const KState *s, MT *rng, int8_t *order) {
    int pile[NI], n = 0;
    discard_pile(s, pile);
    for (int c = 0; c < NI; c++)
        for (int k = 0; k < pile[c]; k++) order[n++] = (int8_t)c;
    mt_shuffle(rng, order, n);
    return n;
}

static void play_card(KState *s, int seat, int card) {
    s->hands[seat][card]--;
    s->hand_size[seat]--;
    if (s->known[seat][card]) s->known[seat][card]--;
}

static void take_bridge_away(KState *s, int owner, int line) {
    s->bridges[line] = NOBODY;
    s->owned[owner] &= ~(1U << line);
    s->supply_bridges[owner]++;
    int ends[2] = {LINE_A[line], LINE_B[line]};
    for (int k = 0; k < 2; k++) {
        int i = ends[k];
        s->counts[owner][i]--;
        if (s->stones[i] == owner && s->counts[owner][i] < CONTROL[i]) {
            s->stones[i] = NOBODY;
            s->supply_stones[owner]++;
        }
    }
}

static void claim(KState *s, int seat, int island) {
    s->stones[island] = (int8_t)seat;
    s->supply_stones[seat]--;
    int other = 1 - seat;
    for (int k = 0; k < ISLAND_NLINES[island]; k++) {
        int line = ISLAND_LINES[island][k];
        if (s->bridges[line] == other) take_bridge_away(s, other, line);
    }
}

static void build(KState *s, int seat, int line) {
    s->bridges[line] = (int8_t)seat;
    s->owned[seat] |= 1U << line;
    s->supply_bridges[seat]--;
    int ends[2] = {LINE_A[line], LINE_B[line]};
    s->counts[seat][ends[0]]++;
    s->counts[seat][ends[1]]++;
    for (int k = 0; k < 2; k++) {
        int i = ends[k];
        if (s->stones[i] == NOBODY && s->counts[seat][i] >= CONTROL[i] && s->supply_stones[seat] > 0)
            claim(s, seat, i);
    }
}

void finish(KState *s, int winner, int reason) {
    s->phase = OVER;
    s->final_turns = 0;
    s->declined = 0;
    s->winner = (int8_t)winner;
    s->reason = (int8_t)reason;
}

static void check_no_bridges(KState *s) {
    int b0 = bridges_on_board(s, 0), b1 = bridges_on_board(s, 1);
    if ((b0 == 0) != (b1 == 0)) finish(s, b0 ? 0 : 1, R_NO_BRIDGES);
}

static void reshuffle(KState *s, const int8_t *order, int n) {
    memset(s->discard_up, 0, sizeof s->discard_up);
    memset(s->discard_down, 0, sizeof s->discard_down);
    memset(s->display, 0, sizeof s->display);
    int shown = n < DISPLAY_SIZE ? n : DISPLAY_SIZE;
    for (int i = 0; i < shown; i++) s->display[order[i]]++;
    memset(s->deck, 0, sizeof s->deck);
    s->deck_len = (int8_t)(n - shown);
    for (int i = 0; i < s->deck_len; i++) s->deck[i] = order[n - 1 - i];
    s->round++;
}

static void end_round(KState *s, const int8_t *order, int n) {
    int st0 = stones_on_board(s, 0), st1 = stones_on_board(s, 1);
    /* Rounds 1 and 2 give 1 and 2 points to the stone leader; round 3 is scored only by the
       final scoring after the two last turns (RULES.md). */
    if (s->round < ROUNDS && st0 != st1) s->points[st0 > st1 ? 0 : 1][s->round - 1] = (int8_t)s->round;
    if (s->round == ROUNDS) {
        s->phase = FINAL;
        s->final_turns = 2;
        return;
    }
    reshuffle(s, order, n);
}

static void end_final_turn(KState *s, int seat) {
    s->final_turns--;
    if (s->final_turns) {
        s->to_move = (int8_t)(1 - seat);
        return;
    }
    int st0 = stones_on_board(s, 0), st1 = stones_on_board(s, 1);
    int g0 = 0, g1 = 0;
    if (st0 > st1) g0 = st0 - st1;
    else if (st1 > st0) g1 = st1 - st0;
    s->points[0][ROUNDS - 1] = (int8_t)g0;
    s->points[1][ROUNDS - 1] = (int8_t)g1;
    int t0 = 0, t1 = 0;
    for (int r = 0; r < ROUNDS; r++) {
        t0 += s->points[0][r];
        t1 += s->points[1][r];
    }
    if (t0 != t1) finish(s, t0 > t1 ? 0 : 1, R_POINTS);
    else if (g0 != g1) finish(s, g0 ? 0 : 1, R_FINAL_SCORING);
    else {
        int b0 = bridges_on_board(s, 0), b1 = bridges_on_board(s, 1);
        if (b0 != b1) finish(s, b0 > b1 ? 0 : 1, R_BRIDGES);
        else finish(s, -1, R_DRAW);
    }
}

void apply_unchecked(KState *s, int action, const int8_t *order, int order_len) {
    int seat = s->to_move;
    int round_before = s->round;
    if (action < REMOVE_BASE) {
        int line = action >> 1;
        int card = (action & 1) ? LINE_B[line] : LINE_A[line];
        play_card(s, seat, card);
        s->discard_up[card]++;
        build(s, seat, line);
    } else if (action < DISCARD_BASE) {
        int replace = action >= REPLACE_BASE;
        int k = action - (replace ? REPLACE_BASE : REMOVE_BASE);
        int line = k / 3, pair = k % 3;
        int a = LINE_A[line], b = LINE_B[line];
        int c1 = pair == 2 ? b : a, c2 = pair == 0 ? a : b;
        play_card(s, seat, c1);
        s->discard_up[c1]++;
        play_card(s, seat, c2);
        s->discard_up[c2]++;
        take_bridge_away(s, 1 - seat, line);
        if (replace) build(s, seat, line);
    } else if (action < TAKE_DISPLAY_BASE) {
        int card = action - DISCARD_BASE;
        s->hands[seat][card]--;
        s->hand_size[seat]--;
        s->discard_down[seat][card]++;
        for (int c = 0; c < NI; c++)
            if (s->known[seat][c]) s->known[seat][c]--;
        return;
    } else if (action == A_END) {
        end_final_turn(s, seat);
        return;
    } else if (action == A_PASS) {
        s->declined = 1;
        s->to_move = (int8_t)(1 - seat);
        return;
    } else {
        int card;
        s->declined = 0;
        if (action == A_TAKE_DECK) {
            card = s->deck[--s->deck_len];
            s->deck[s->deck_len] = 0;
        } else {
            card = action - TAKE_DISPLAY_BASE;
            s->display[card]--;
            s->known[seat][card]++;
            if (s->deck_len) {
                int top = s->deck[--s->deck_len];
                s->deck[s->deck_len] = 0;
                s->display[top]++;
            }
        }
        s->hands[seat][card]++;
        s->hand_size[seat]++;
        s->to_move = (int8_t)(1 - seat);
        int left = s->deck_len;
        for (int c = 0; c < NI; c++) left += s->display[c];
        if (!left) end_round(s, order, order_len);
        if (s->round == round_before) return;
    }
    if (s->round >= 2 && s->phase != OVER) check_no_bridges(s);
}

void apply_rng(KState *s, int action, MT *rng) {
    int8_t order[NCARDS];
    int n = 0;
    if (needs_reshuffle(s, action)) n = random_order(s, rng, order);
    apply_unchecked(s, action, order, n);
}

void new_game(KState *s, MT *rng, int nbes, int ror) {
    int8_t cards[NCARDS];
    for (int i = 0; i < NCARDS; i++) cards[i] = (int8_t)(i / PER_ISLAND);
    mt_shuffle(rng, cards, NCARDS);
    memset(s, 0, sizeof *s);
    s->round = 1;
    s->phase = PLAY;
    s->winner = -1;
    s->v_nbes = (int8_t)nbes;
    s->v_ror = (int8_t)ror;
    memset(s->bridges, NOBODY, sizeof s->bridges);
    memset(s->stones, NOBODY, sizeof s->stones);
    s->supply_bridges[0] = s->supply_bridges[1] = BRIDGES;
    s->supply_stones[0] = s->supply_stones[1] = STONES;
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < HAND_START; i++) s->hands[p][cards[p * HAND_START + i]]++;
    for (int i = 0; i < DISPLAY_SIZE; i++) s->display[cards[2 * HAND_START + i]]++;
    int rest = NCARDS - 2 * HAND_START - DISPLAY_SIZE;
    s->deck_len = (int8_t)rest;
    for (int i = 0; i < rest; i++) s->deck[i] = cards[NCARDS - 1 - i];
    derive(s);
}

long random_game(KState *s, MT *rng) {
    uint8_t legal[MAX_LEGAL];
    long actions = 0;
    while (s->phase != OVER) {
        int k = legal_actions(s, legal);
        apply_rng(s, legal[mt_below(rng, k)], rng);
        actions++;
    }
    return actions;
}
