/*
 * kahuna.fast._core: the rules of Kahuna and the ISMCTS inner loop in C.
 *
 * A mirror of the Python referee (kahuna/rules/state.py, views.py) and of the search
 * (kahuna/ai/ismcts.py, heuristic.py) for speed; the Python referee stays the single source of
 * truth, and tests/fast plays both side by side and compares them after every action.
 *
 * Why it looks like this:
 *  - the state is one fixed-size struct of small integers laid out like the referee's flat lists,
 *    so a copy is a memcpy and nothing is allocated while a game or a search runs;
 *  - the random numbers are CPython's Mersenne Twister (same seeding, same randbelow, random()
 *    and shuffle), so the same seed gives the same games and the same search tree as in Python;
 *  - floating point follows the Python expressions operation by operation (no contraction into
 *    fused multiply-adds: setup.py passes -ffp-contract=off) so that the heuristic gives equal
 *    values, bit for bit;
 *  - the board (lines, control, degree) is handed over once by kahuna/fast/__init__.py from
 *    kahuna.rules.board, so the board file stays the one description of the archipelago;
 *  - every entry point checks its arguments and raises ValueError/TypeError instead of trusting
 *    Python callers; the search releases the GIL and bounds its memory by its iteration budget.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ board */

#define NI 12          /* islands */
#define NL 27          /* lines */
#define NCARDS 24
#define PER_ISLAND 2
#define BRIDGES 25
#define STONES 10
#define HAND_LIMIT 5
#define DISPLAY_SIZE 3
#define HAND_START 3
#define ROUNDS 3
#define NACTIONS 243
#define MAX_LEGAL NACTIONS

#define REMOVE_BASE 54
#define REPLACE_BASE 135
#define DISCARD_BASE 216
#define TAKE_DISPLAY_BASE 228
#define A_TAKE_DECK 240
#define A_PASS 241
#define A_END 242

enum { PLAY = 0, FINAL = 1, OVER = 2 };
/* Result reasons (kahuna/fast/layout.py REASONS): the board's, then the terminations off the board. */
enum { R_NONE = 0, R_POINTS, R_FINAL_SCORING, R_BRIDGES, R_NO_BRIDGES, R_DRAW, R_RESIGN, R_TIMEOUT, R_ABORTED, R_COUNT };
#define NOBODY (-1)

static int board_ready = 0;
static int8_t LINE_A[NL], LINE_B[NL];
static int8_t CONTROL[NI], DEGREE[NI];
static int8_t ISLAND_LINES[NI][8];   /* lines of an island in line order */
static int8_t ISLAND_NLINES[NI];
static int8_t NB_OTHER[NI][8], NB_LINE[NI][8]; /* neighbours sorted by letter, with the line */
static uint32_t CARD_LINES[NI];                 /* bit l: line l touches the island */

/* ------------------------------------------------------------------ CPython's MT19937 */

typedef struct {
    uint32_t mt[624];
    int index;
} MT;

static uint32_t mt_next(MT *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    uint32_t *mt = r->mt;
    if (r->index >= 624) {
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
    y = mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
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

/* random.Random(n) for 0 <= n < 2**64. */
static void mt_seed_u64(MT *r, uint64_t n) {
    uint32_t key[2] = {(uint32_t)(n & 0xffffffffU), (uint32_t)(n >> 32)};
    mt_init_by_array(r, key, key[1] ? 2 : 1);
}

static double mt_random(MT *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* Random._randbelow_with_getrandbits(n) for 1 <= n < 2**31. */
static int mt_below(MT *r, int n) {
    if (n <= 0) return 0; /* never asked by the rules; a guard against undefined shifts */
    int k = 0;
    while ((n >> k) != 0) k++;
    uint32_t v;
    do {
        v = mt_next(r) >> (32 - k);
    } while (v >= (uint32_t)n);
    return (int)v;
}

static void mt_shuffle(MT *r, int8_t *x, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = mt_below(r, i + 1);
        int8_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* ------------------------------------------------------------------ state */

typedef struct {
    int8_t round, phase, to_move, declined, final_turns, v_nbes, v_ror, winner, reason;
    int8_t bridges[NL], stones[NI];
    int8_t supply_bridges[2], supply_stones[2];
    int8_t hands[2][NI], display[NI];
    int8_t deck_len, deck[NCARDS]; /* top card last, as in the referee */
    int8_t discard_up[NI], discard_down[2][NI], points[2][ROUNDS], known[2][NI];
    /* derived, kept up to date */
    int8_t counts[2][NI], hand_size[2];
    uint32_t owned[2]; /* bit l: the seat has a bridge on line l */
} KState;

/* The flat field layout shared with Python (kahuna/fast/layout.py reads FIELDS). */
#define F_SCALARS 9
static const struct {
    const char *name;
    int size;
} FIELDS[] = {
    {"round", 1},       {"phase", 1},         {"to_move", 1},       {"declined", 1},
    {"final_turns", 1}, {"no_build_at_enemy_stone", 1},             {"replace_on_remove", 1},
    {"winner", 1},      {"reason", 1},        {"bridges", NL},      {"stones", NI},
    {"supply_bridges", 2}, {"supply_stones", 2}, {"hands", 2 * NI}, {"display", NI},
    {"deck_len", 1},    {"deck", NCARDS},     {"discard_up", NI},   {"discard_down", 2 * NI},
    {"points", 2 * ROUNDS}, {"known", 2 * NI},
};
#define NFIELDS_GROUPS ((int)(sizeof(FIELDS) / sizeof(FIELDS[0])))
/* offsetof(KState, counts) is exactly the flat size: the fields are the struct's first bytes. */
#define FLAT_SIZE ((int)offsetof(KState, counts))

static void derive(KState *s) {
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

/* What is impossible about a state read from outside (NULL when it is consistent). */
static const char *check_state(const KState *s) {
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

static int check_state_derived(const KState *s) {
    for (int p = 0; p < 2; p++) {
        if (s->hand_size[p] > HAND_LIMIT) return 0;
        for (int i = 0; i < NI; i++)
            if (s->stones[i] == p && s->counts[p][i] < CONTROL[i]) return 0;
    }
    return 1;
}

static inline int stones_on_board(const KState *s, int p) { return STONES - s->supply_stones[p]; }
static inline int bridges_on_board(const KState *s, int p) { return BRIDGES - s->supply_bridges[p]; }

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

/* Every legal action in token order (as GameState.legal_actions); returns the count. */
static int legal_actions(const KState *s, uint8_t *out) {
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

static int is_legal(const KState *s, int action) {
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

static inline int needs_reshuffle(const KState *s, int action) { return s->round < ROUNDS && ends_round(s, action); }

static void discard_pile(const KState *s, int *pile) {
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

static void finish(KState *s, int winner, int reason) {
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

/* Apply a legal action (not checked here). ``order`` is the reshuffle order when the action
   needs one (needs_reshuffle), else ignored. */
static void apply_unchecked(KState *s, int action, const int8_t *order, int order_len) {
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

/* Apply with the RNG providing a reshuffle order when one is due (search and random games). */
static void apply_rng(KState *s, int action, MT *rng) {
    int8_t order[NCARDS];
    int n = 0;
    if (needs_reshuffle(s, action)) n = random_order(s, rng, order);
    apply_unchecked(s, action, order, n);
}

static void new_game(KState *s, MT *rng, int nbes, int ror) {
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

/* ------------------------------------------------------------------ heuristic (heuristic.py) */

#define WIN_SCORE 100.0
static const double H_ROUND_POINTS[3] = {1.0, 2.0, 3.0};

/* The heuristic's weights (heuristic.Weights, same order): a search is handed them at run time so
   that tuned weights play in C exactly as in Python. */
typedef struct {
    double stone, degree_bonus, fragile_loss, claim_threat, progress, bridge, strike, card, scale;
} HWeights;
static const HWeights DEFAULT_HWEIGHTS = {1.0, 0.06, 0.45, 0.45, 0.12, 0.07, 0.08, 0.1, 1.5};

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

static double exact_win_probability(const KState *s, const HWeights *w) {
    Belief b[2];
    belief_exact(s->hands[0], &b[0]);
    belief_exact(s->hands[1], &b[1]);
    return win_probability(s, 0, b, w);
}

/* ------------------------------------------------------------------ playout (ismcts.py) */

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

static double playout(KState *s, MT *rng, int turns, const HWeights *w) {
    int ended = 0;
    while (s->phase != OVER && ended < turns) {
        int a = playout_action(s, rng);
        if (a < 0) break;
        apply_rng(s, a, rng);
        if (action_kind_ends_turn(a)) ended++;
    }
    return exact_win_probability(s, w);
}

/* Legal actions worth a branch: face-down discards only with a full hand. */
static int tree_actions(const KState *s, uint8_t *out) {
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

/* ------------------------------------------------------------------ view and determinization */

typedef struct {
    KState base;      /* public state + the viewer's hand and face-down discards + known cards */
    int seat;
    int hand_slots[2], down_slots[2];
    int8_t pool[NCARDS];
    int pool_len;
} View;

static void determinize(const View *v, MT *rng, KState *out) {
    int8_t pool[NCARDS];
    memcpy(pool, v->pool, (size_t)v->pool_len);
    mt_shuffle(rng, pool, v->pool_len);
    *out = v->base;
    int pos = 0;
    for (int p = 0; p < 2; p++) {
        if (p == v->seat) continue;
        for (int i = 0; i < v->hand_slots[p]; i++) out->hands[p][pool[pos + i]]++;
        pos += v->hand_slots[p];
        for (int i = 0; i < v->down_slots[p]; i++) out->discard_down[p][pool[pos + i]]++;
        pos += v->down_slots[p];
    }
    out->deck_len = (int8_t)(v->pool_len - pos);
    for (int i = 0; i < out->deck_len; i++) out->deck[i] = pool[pos + i];
    derive(out);
}

/* ------------------------------------------------------------------ ISMCTS (ismcts.py) */

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

/* ------------------------------------------------------------------ Python glue */

typedef struct {
    PyObject_HEAD KState s;
} StateObject;

static PyTypeObject StateType;

static int need_board(void) {
    if (!board_ready) {
        PyErr_SetString(PyExc_RuntimeError, "kahuna.fast._core.configure() has not been called");
        return 0;
    }
    return 1;
}

/* Read a sequence of small ints into int8_t; range-checked. */
static int read_int8s(PyObject *seq, int8_t *out, Py_ssize_t n, long lo, long hi, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return 0;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd integers, got %zd", what, n, PySequence_Fast_GET_SIZE(fast));
        Py_DECREF(fast);
        return 0;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyLong_Check(items[i])) {
            PyErr_Format(PyExc_TypeError, "%s: item %zd is not an int", what, i);
            Py_DECREF(fast);
            return 0;
        }
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            v = hi + 1;
        }
        if (v < lo || v > hi) {
            PyErr_Format(PyExc_ValueError, "%s: item %zd out of range %ld..%ld", what, i, lo, hi);
            Py_DECREF(fast);
            return 0;
        }
        out[i] = (int8_t)v;
    }
    Py_DECREF(fast);
    return 1;
}

static PyObject *new_state_object(const KState *s) {
    StateObject *o = PyObject_New(StateObject, &StateType);
    if (!o) return NULL;
    o->s = *s;
    return (PyObject *)o;
}

/* State(fields): a state from the flat layout, checked for consistency. */
static PyObject *State_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *fields;
    static char *kwlist[] = {"fields", NULL};
    if (!need_board()) return NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:State", kwlist, &fields)) return NULL;
    KState s;
    memset(&s, 0, sizeof s);
    if (!read_int8s(fields, (int8_t *)&s, FLAT_SIZE, -1, 127, "fields")) return NULL;
    const char *problem = check_state(&s);
    if (problem) {
        PyErr_Format(PyExc_ValueError, "inconsistent state: %s", problem);
        return NULL;
    }
    derive(&s);
    if (!check_state_derived(&s)) {
        PyErr_SetString(PyExc_ValueError, "inconsistent state: a hand above the limit or a stone without a majority");
        return NULL;
    }
    StateObject *o = (StateObject *)type->tp_alloc(type, 0);
    if (!o) return NULL;
    o->s = s;
    return (PyObject *)o;
}

static PyObject *State_fields(StateObject *self, PyObject *unused) {
    PyObject *out = PyList_New(FLAT_SIZE);
    if (!out) return NULL;
    const int8_t *raw = (const int8_t *)&self->s;
    for (int i = 0; i < FLAT_SIZE; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(raw[i]));
    return out;
}

static PyObject *State_legal(StateObject *self, PyObject *unused) {
    uint8_t buf[MAX_LEGAL];
    int n = legal_actions(&self->s, buf);
    return PyBytes_FromStringAndSize((const char *)buf, n);
}

static int parse_action(PyObject *arg, int *action) {
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return 0;
    if (a < 0 || a >= NACTIONS) {
        PyErr_Format(PyExc_ValueError, "no action has index %ld (0-%d)", a, NACTIONS - 1);
        return 0;
    }
    *action = (int)a;
    return 1;
}

static PyObject *State_needs_reshuffle(StateObject *self, PyObject *arg) {
    int a;
    if (!parse_action(arg, &a)) return NULL;
    return PyBool_FromLong(needs_reshuffle(&self->s, a));
}

/* apply(action, order=None): order is a bytes/sequence of cards, required when a reshuffle is due
   and then checked to be an ordering of the discard pile. Raises ValueError (state unchanged)
   for an illegal action: the Python wrapper explains it with the referee's words. */
static PyObject *State_apply(StateObject *self, PyObject *args) {
    PyObject *action_obj, *order_obj = Py_None;
    if (!PyArg_ParseTuple(args, "O|O:apply", &action_obj, &order_obj)) return NULL;
    int a;
    if (!parse_action(action_obj, &a)) return NULL;
    if (!is_legal(&self->s, a)) {
        PyErr_Format(PyExc_ValueError, "action %d is not legal here", a);
        return NULL;
    }
    int8_t order[NCARDS];
    int n = 0;
    if (needs_reshuffle(&self->s, a)) {
        if (order_obj == Py_None) {
            PyErr_SetString(PyExc_ValueError, "a reshuffle order is needed");
            return NULL;
        }
        int pile[NI], got[NI] = {0}, total = 0;
        discard_pile(&self->s, pile);
        for (int c = 0; c < NI; c++) total += pile[c];
        if (!read_int8s(order_obj, order, total, 0, NI - 1, "order")) return NULL;
        for (int i = 0; i < total; i++) got[order[i]]++;
        if (memcmp(pile, got, sizeof pile) != 0) {
            PyErr_SetString(PyExc_ValueError, "the order is not an ordering of the discard pile");
            return NULL;
        }
        n = total;
    }
    apply_unchecked(&self->s, a, order, n);
    Py_RETURN_NONE;
}

static PyObject *State_pile(StateObject *self, PyObject *unused) {
    int pile[NI];
    discard_pile(&self->s, pile);
    PyObject *out = PyList_New(NI);
    if (!out) return NULL;
    for (int c = 0; c < NI; c++) PyList_SET_ITEM(out, c, PyLong_FromLong(pile[c]));
    return out;
}

static PyObject *State_copy(StateObject *self, PyObject *unused) { return new_state_object(&self->s); }

/* terminate(winner, reason): end a running game off the board, as GameState.terminate: reason is
   a termination's code (resign, timeout, aborted), winner the seat that wins (-1 only when aborted).
   ValueError, state unchanged, for a game already over or a result no termination gives. */
static PyObject *State_terminate(StateObject *self, PyObject *args) {
    int winner, reason;
    if (!PyArg_ParseTuple(args, "ii:terminate", &winner, &reason)) return NULL;
    if (self->s.phase == OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is over");
        return NULL;
    }
    if (reason < R_RESIGN || reason > R_ABORTED || winner < -1 || winner > 1 || (winner < 0) != (reason == R_ABORTED)) {
        PyErr_SetString(PyExc_ValueError, "a termination is resign or timeout with a winner, or aborted without");
        return NULL;
    }
    finish(&self->s, winner, reason);
    Py_RETURN_NONE;
}

static PyObject *State_heuristic(StateObject *self, PyObject *unused) {
    return PyFloat_FromDouble(exact_win_probability(&self->s, &DEFAULT_HWEIGHTS));
}

static int read_mt_state(PyObject *obj, MT *r);

/* playout(rng_state) -> (winner, rng_state): a uniformly random playout of a copy of the state
   to the end, reshuffles included, drawn from a Python random.Random's state (getstate()[1]) as
   the Python loop `apply(legal[randrange(len(legal))])` over the referee or FastState draws them:
   the same choices in C, which OpenSpiel's ISMCTS spends most of its time on. Returns the winner
   (-1: a draw) and the generator's state afterwards, for random.Random.setstate. */
static PyObject *State_playout(StateObject *self, PyObject *arg) {
    MT rng;
    if (!read_mt_state(arg, &rng)) return NULL;
    KState s = self->s;
    uint8_t legal[MAX_LEGAL];
    while (s.phase != OVER) {
        int k = legal_actions(&s, legal);
        apply_rng(&s, legal[mt_below(&rng, k)], &rng);
    }
    PyObject *words = PyTuple_New(625);
    if (!words) return NULL;
    for (int i = 0; i < 624; i++) {
        PyObject *w = PyLong_FromUnsignedLong(rng.mt[i]);
        if (!w) {
            Py_DECREF(words);
            return NULL;
        }
        PyTuple_SET_ITEM(words, i, w);
    }
    PyObject *index = PyLong_FromLong(rng.index);
    if (!index) {
        Py_DECREF(words);
        return NULL;
    }
    PyTuple_SET_ITEM(words, 624, index);
    return Py_BuildValue("(iN)", s.winner, words);
}

static PyObject *State_get_phase(StateObject *self, void *c) { return PyLong_FromLong(self->s.phase); }
static PyObject *State_get_to_move(StateObject *self, void *c) { return PyLong_FromLong(self->s.to_move); }
static PyObject *State_get_round(StateObject *self, void *c) { return PyLong_FromLong(self->s.round); }

static PyGetSetDef State_getset[] = {
    {"phase", (getter)State_get_phase, NULL, "0 play, 1 final, 2 over", NULL},
    {"to_move", (getter)State_get_to_move, NULL, "seat to move", NULL},
    {"round", (getter)State_get_round, NULL, "round 1-3", NULL},
    {NULL},
};

static PyMethodDef State_methods[] = {
    {"fields", (PyCFunction)State_fields, METH_NOARGS, "the flat field list (see FIELDS)"},
    {"legal", (PyCFunction)State_legal, METH_NOARGS, "legal action indices in token order, as bytes"},
    {"needs_reshuffle", (PyCFunction)State_needs_reshuffle, METH_O, "whether the action starts a new round"},
    {"apply", (PyCFunction)State_apply, METH_VARARGS, "apply(action, order=None)"},
    {"pile", (PyCFunction)State_pile, METH_NOARGS, "the discard pile as 12 counts"},
    {"copy", (PyCFunction)State_copy, METH_NOARGS, "an independent copy"},
    {"terminate", (PyCFunction)State_terminate, METH_VARARGS, "terminate(winner, reason): end the game off the board"},
    {"heuristic", (PyCFunction)State_heuristic, METH_NOARGS, "seat 0's win probability with exact beliefs"},
    {"playout", (PyCFunction)State_playout, METH_O, "playout(rng_state) -> (winner, rng_state)"},
    {NULL},
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kahuna.fast._core.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A Kahuna state in C: State(fields) with the flat layout of FIELDS.",
    .tp_new = State_new,
    .tp_methods = State_methods,
    .tp_getset = State_getset,
};

/* configure(lines, control, degree): the board from kahuna.rules.board. */
static PyObject *configure(PyObject *mod, PyObject *args) {
    PyObject *lines, *control, *degree;
    if (!PyArg_ParseTuple(args, "OOO:configure", &lines, &control, &degree)) return NULL;
    int8_t flat[2 * NL], ctl[NI], deg[NI];
    if (!read_int8s(lines, flat, 2 * NL, 0, NI - 1, "lines")) return NULL;
    if (!read_int8s(control, ctl, NI, 1, 8, "control")) return NULL;
    if (!read_int8s(degree, deg, NI, 1, 8, "degree")) return NULL;
    int8_t nlines[NI] = {0};
    for (int l = 0; l < NL; l++) {
        int a = flat[2 * l], b = flat[2 * l + 1];
        if (a >= b) {
            PyErr_SetString(PyExc_ValueError, "lines must be pairs (a, b) with a < b");
            return NULL;
        }
        if (nlines[a] >= 8 || nlines[b] >= 8) {
            PyErr_SetString(PyExc_ValueError, "an island has more than 8 lines");
            return NULL;
        }
        nlines[a]++;
        nlines[b]++;
    }
    for (int i = 0; i < NI; i++)
        if (nlines[i] != deg[i]) {
            PyErr_SetString(PyExc_ValueError, "degree does not match the lines");
            return NULL;
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
    Py_RETURN_NONE;
}

static int read_seed(PyObject *obj, uint64_t *out) {
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "a seed must be an int");
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "a seed must be in 0..2**64-1");
        return 0;
    }
    *out = (uint64_t)v;
    return 1;
}

/* The state of a Python random.Random (getstate()[1]: 624 words and the index). */
static int read_mt_state(PyObject *obj, MT *r) {
    PyObject *fast = PySequence_Fast(obj, "rng state must be a sequence");
    if (!fast) return 0;
    if (PySequence_Fast_GET_SIZE(fast) != 625) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "rng state must hold 625 integers");
        return 0;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (int i = 0; i < 625; i++) {
        unsigned long v = PyLong_Check(items[i]) ? PyLong_AsUnsignedLong(items[i]) : (unsigned long)-1;
        if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > 0xffffffffUL || (i == 624 && v > 624)) {
            PyErr_Clear();
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "rng state words must be 32-bit and the index at most 624");
            return 0;
        }
        if (i < 624) r->mt[i] = (uint32_t)v;
        else r->index = (int)v;
    }
    Py_DECREF(fast);
    return 1;
}

/* random_games(seeds, no_build_at_enemy_stone, replace_on_remove) -> (actions, [winner...])
   Plays one uniformly random game per seed (deal and choices as kahuna bench engine does with
   random.Random(seed)); returns the total of actions and a result code per game. */
static PyObject *random_games(PyObject *mod, PyObject *args) {
    PyObject *seeds;
    int nbes, ror;
    if (!need_board()) return NULL;
    if (!PyArg_ParseTuple(args, "Opp:random_games", &seeds, &nbes, &ror)) return NULL;
    PyObject *fast = PySequence_Fast(seeds, "seeds must be a sequence");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    uint64_t *vals = (uint64_t *)PyMem_Malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
    int8_t *results = (int8_t *)PyMem_Malloc((size_t)(n ? n : 1) * 2);
    if (!vals || !results) {
        PyMem_Free(vals);
        PyMem_Free(results);
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!read_seed(PySequence_Fast_GET_ITEM(fast, i), &vals[i])) {
            PyMem_Free(vals);
            PyMem_Free(results);
            Py_DECREF(fast);
            return NULL;
        }
    Py_DECREF(fast);
    long long total = 0;
    Py_BEGIN_ALLOW_THREADS;
    MT rng;
    KState s;
    uint8_t legal[MAX_LEGAL];
    for (Py_ssize_t g = 0; g < n; g++) {
        mt_seed_u64(&rng, vals[g]);
        new_game(&s, &rng, nbes, ror);
        while (s.phase != OVER) {
            int k = legal_actions(&s, legal);
            apply_rng(&s, legal[mt_below(&rng, k)], &rng);
            total++;
        }
        results[2 * g] = s.winner;
        results[2 * g + 1] = s.reason;
    }
    Py_END_ALLOW_THREADS;
    PyObject *list = PyList_New(n);
    if (!list) {
        PyMem_Free(vals);
        PyMem_Free(results);
        return NULL;
    }
    for (Py_ssize_t g = 0; g < n; g++)
        PyList_SET_ITEM(list, g, Py_BuildValue("(ii)", results[2 * g], results[2 * g + 1]));
    PyMem_Free(vals);
    PyMem_Free(results);
    return Py_BuildValue("(LN)", total, list);
}

/* mt_check(seed, n, below) -> (randoms, belows, shuffled): for the test that the C generator is
   CPython's. */
static PyObject *mt_check(PyObject *mod, PyObject *args) {
    PyObject *seed_obj;
    int n, below;
    if (!PyArg_ParseTuple(args, "Oii:mt_check", &seed_obj, &n, &below)) return NULL;
    uint64_t seed;
    if (!read_seed(seed_obj, &seed)) return NULL;
    if (n < 0 || n > 100000 || below < 1 || below > 1000000) {
        PyErr_SetString(PyExc_ValueError, "0 <= n <= 100000 and 1 <= below <= 1000000");
        return NULL;
    }
    MT r;
    mt_seed_u64(&r, seed);
    PyObject *randoms = PyList_New(n), *belows = PyList_New(n);
    if (!randoms || !belows) {
        Py_XDECREF(randoms);
        Py_XDECREF(belows);
        return NULL;
    }
    for (int i = 0; i < n; i++) PyList_SET_ITEM(randoms, i, PyFloat_FromDouble(mt_random(&r)));
    for (int i = 0; i < n; i++) PyList_SET_ITEM(belows, i, PyLong_FromLong(mt_below(&r, below)));
    int8_t cards[NCARDS];
    for (int i = 0; i < NCARDS; i++) cards[i] = (int8_t)(i / 2);
    mt_shuffle(&r, cards, NCARDS);
    PyObject *shuffled = PyList_New(NCARDS);
    if (!shuffled) {
        Py_DECREF(randoms);
        Py_DECREF(belows);
        return NULL;
    }
    for (int i = 0; i < NCARDS; i++) PyList_SET_ITEM(shuffled, i, PyLong_FromLong(cards[i]));
    return Py_BuildValue("(NNN)", randoms, belows, shuffled);
}

/* The view a search starts from (view_fields, seat, hand_slots, down_slots: see search below),
   checked; 0 with a Python exception when it is not a consistent view of the seat to move. */
static int read_view(PyObject *fields, int seat, const int hs[2], const int ds[2], View *v) {
    memset(v, 0, sizeof *v);
    if (!read_int8s(fields, (int8_t *)&v->base, FLAT_SIZE, -1, 127, "view fields")) return 0;
    KState *b = &v->base;
    if (seat < 0 || seat > 1) {
        PyErr_SetString(PyExc_ValueError, "seat must be 0 or 1");
        return 0;
    }
    if (b->phase == OVER || b->to_move != seat) {
        PyErr_SetString(PyExc_ValueError, "search is for the seat to move in a running game");
        return 0;
    }
    int other = 1 - seat;
    if (hs[seat] || ds[seat] || hs[other] < 0 || ds[other] < 0 || hs[other] > HAND_LIMIT || ds[other] > NCARDS) {
        PyErr_SetString(PyExc_ValueError, "hidden slots belong to the other seat and are small");
        return 0;
    }
    /* The unseen pool: two of each card minus what the viewer can locate. */
    int unseen[NI], pool_len = 0;
    for (int cc = 0; cc < NI; cc++) {
        if (b->deck[cc] != 0 || b->discard_down[other][cc] != 0 || b->hands[other][cc] != b->known[other][cc]) {
            PyErr_SetString(PyExc_ValueError, "view fields must leave the hidden cards out");
            return 0;
        }
        int parts[5] = {b->display[cc], b->discard_up[cc], b->hands[seat][cc], b->discard_down[seat][cc],
                        b->known[other][cc]};
        for (int k = 0; k < 5; k++)
            if (parts[k] < 0 || parts[k] > PER_ISLAND) {
                PyErr_SetString(PyExc_ValueError, "card counts must be 0-2");
                return 0;
            }
        unseen[cc] = PER_ISLAND - (parts[0] + parts[1] + parts[2] + parts[3] + parts[4]);
        if (unseen[cc] < 0) {
            PyErr_SetString(PyExc_ValueError, "a card is in more places than it has copies");
            return 0;
        }
        for (int k = 0; k < unseen[cc]; k++) v->pool[pool_len++] = (int8_t)cc;
    }
    for (int i = NI; i < NCARDS; i++)
        if (b->deck[i] != 0) {
            PyErr_SetString(PyExc_ValueError, "view fields must leave the deck out");
            return 0;
        }
    if (pool_len != hs[other] + ds[other] + b->deck_len) {
        PyErr_SetString(PyExc_ValueError, "inconsistent player view: unseen cards do not fill the hidden places");
        return 0;
    }
    v->pool_len = pool_len;
    v->seat = seat;
    v->hand_slots[other] = hs[other];
    v->down_slots[other] = ds[other];
    /* Check the view by checking one determinization of it. */
    {
        KState probe = *b;
        int pos = 0;
        for (int i = 0; i < hs[other]; i++) probe.hands[other][v->pool[pos++]]++;
        for (int i = 0; i < ds[other]; i++) probe.discard_down[other][v->pool[pos++]]++;
        for (int i = 0; i < b->deck_len; i++) probe.deck[i] = v->pool[pos++];
        const char *problem = check_state(&probe);
        if (problem) {
            PyErr_Format(PyExc_ValueError, "inconsistent view: %s", problem);
            return 0;
        }
        derive(&probe);
        if (!check_state_derived(&probe)) {
            PyErr_SetString(PyExc_ValueError, "inconsistent view");
            return 0;
        }
    }
    return 1;
}

/* search(view_fields, seat, hand_slots, down_slots, rng_state, iterations, seconds, c, playout, weights)
   -> (visits {action: n}, iterations done). view_fields: the flat layout with the hidden cards
   left out (the other seat's hand holds only its known cards, its face-down discards are 0, the
   deck is deck_len zeros); weights: the nine heuristic weights, in HWeights order. */
#define MAX_ITERATIONS 50000000
static PyObject *search(PyObject *mod, PyObject *args) {
    PyObject *fields, *rng_state;
    int seat, hs0, hs1, ds0, ds1, iterations, playout_turns;
    double seconds, c;
    HWeights w;
    if (!need_board()) return NULL;
    if (!PyArg_ParseTuple(args, "Oi(ii)(ii)Oiddi(ddddddddd):search", &fields, &seat, &hs0, &hs1, &ds0, &ds1,
                          &rng_state, &iterations, &seconds, &c, &playout_turns, &w.stone, &w.degree_bonus,
                          &w.fragile_loss, &w.claim_threat, &w.progress, &w.bridge, &w.strike, &w.card, &w.scale))
        return NULL;
    {
        const double each[] = {w.stone, w.degree_bonus, w.fragile_loss, w.claim_threat, w.progress,
                               w.bridge,  w.strike,       w.card,         w.scale};
        int finite = 1;
        for (size_t k = 0; k < sizeof each / sizeof each[0]; k++) finite = finite && isfinite(each[k]);
        if (!finite || !(w.scale > 0.0)) {
            PyErr_SetString(PyExc_ValueError, "heuristic weights must be finite and the scale positive");
            return NULL;
        }
    }
    if (iterations < 1 || iterations > MAX_ITERATIONS || !(seconds >= 0.0 && seconds <= 3600.0) ||
        !(c >= 0.0 && c <= 100.0) || playout_turns < 0 || playout_turns > 1000) {
        PyErr_SetString(PyExc_ValueError, "bad search budget or settings");
        return NULL;
    }
    int hs[2] = {hs0, hs1}, ds[2] = {ds0, ds1};
    View v;
    if (!read_view(fields, seat, hs, ds, &v)) return NULL;
    MT rng;
    if (!read_mt_state(rng_state, &rng)) return NULL;
    Tree t = {NULL, 0, 0};
    if (tree_new_node(&t, 0) < 0) return PyErr_NoMemory();
    int done = 0, failed = 0;
    Py_BEGIN_ALLOW_THREADS;
    double deadline = seconds > 0 ? now_seconds() + seconds : 0.0;
    for (;;) {
        if (seconds <= 0) {
            if (done >= iterations) break;
        } else if ((done && now_seconds() >= deadline) || done >= MAX_ITERATIONS) {
            break;
        }
        if (iterate(&t, &v, &rng, c, playout_turns, &w) < 0) {
            failed = 1;
            break;
        }
        done++;
    }
    Py_END_ALLOW_THREADS;
    if (failed) {
        free(t.nodes);
        return PyErr_NoMemory();
    }
    PyObject *visits = PyDict_New();
    if (!visits) {
        free(t.nodes);
        return NULL;
    }
    for (int32_t ch = t.nodes[0].first_child; ch >= 0; ch = t.nodes[ch].next_sibling) {
        PyObject *k = PyLong_FromLong(t.nodes[ch].action), *val = PyLong_FromLong(t.nodes[ch].visits);
        if (!k || !val || PyDict_SetItem(visits, k, val) < 0) {
            Py_XDECREF(k);
            Py_XDECREF(val);
            Py_DECREF(visits);
            free(t.nodes);
            return NULL;
        }
        Py_DECREF(k);
        Py_DECREF(val);
    }
    free(t.nodes);
    return Py_BuildValue("(Ni)", visits, done);
}


/* ------------------------------------------------------------------ vectorised batch (envs/vector.py) */

#define OBS_SIZE 173
#define MAX_BATCH 65536

/* The observation of seat `me`'s view, as kahuna.ai.features.encode_view writes it (each value a
   double rounded once to float, as numpy does when storing a Python float). */
static void encode_obs(const KState *s, int me, float *obs) {
    int them = 1 - me, k = 0;
    for (int l = 0; l < NL; l++) obs[k++] = s->bridges[l] == me ? 1.0f : 0.0f;
    for (int l = 0; l < NL; l++) obs[k++] = s->bridges[l] == them ? 1.0f : 0.0f;
    for (int i = 0; i < NI; i++) obs[k++] = s->stones[i] == me ? 1.0f : 0.0f;
    for (int i = 0; i < NI; i++) obs[k++] = s->stones[i] == them ? 1.0f : 0.0f;
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->hands[me][c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->known[them][c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->display[c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->discard_up[c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->discard_down[me][c] / 2.0);
    int down_them = 0;
    for (int c = 0; c < NI; c++) {
        int seen = s->display[c] + s->discard_up[c] + s->hands[me][c] + s->discard_down[me][c] + s->known[them][c];
        obs[k++] = (float)((PER_ISLAND - seen) / 2.0);
        down_them += s->discard_down[them][c];
    }
    obs[k++] = (float)(s->hand_size[me] / (double)HAND_LIMIT);
    obs[k++] = (float)(s->hand_size[them] / (double)HAND_LIMIT);
    obs[k++] = (float)(down_them / (double)NCARDS);
    obs[k++] = (float)(s->deck_len / (double)(NCARDS - DISPLAY_SIZE));
    obs[k++] = (float)(s->supply_bridges[me] / (double)BRIDGES);
    obs[k++] = (float)(s->supply_bridges[them] / (double)BRIDGES);
    obs[k++] = (float)(s->supply_stones[me] / (double)STONES);
    obs[k++] = (float)(s->supply_stones[them] / (double)STONES);
    for (int r = 0; r < ROUNDS; r++) obs[k++] = s->round == r + 1 ? 1.0f : 0.0f;
    obs[k++] = s->phase == FINAL ? 1.0f : 0.0f;
    obs[k++] = (float)(s->final_turns / 2.0);
    obs[k++] = s->declined ? 1.0f : 0.0f;
    static const double max_points[ROUNDS] = {1.0, 2.0, (double)STONES};
    for (int r = 0; r < ROUNDS; r++) obs[k++] = (float)(s->points[me][r] / max_points[r]);
    for (int r = 0; r < ROUNDS; r++) obs[k++] = (float)(s->points[them][r] / max_points[r]);
    obs[k++] = (float)me;
    obs[k++] = (float)s->v_nbes;
    obs[k++] = (float)s->v_ror;
}

typedef struct {
    PyObject_HEAD KState *games;
    Py_ssize_t n;
    int nbes, ror;
    MT rng;
} BatchObject;

static PyTypeObject BatchType;

static void Batch_dealloc(BatchObject *self) {
    PyMem_Free(self->games);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Batch(n, seed, no_build_at_enemy_stone, replace_on_remove): n games dealt one after the other
   from random.Random(seed), which also draws every reshuffle and every new deal. */
static PyObject *Batch_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    Py_ssize_t n;
    PyObject *seed_obj;
    int nbes, ror;
    static char *kwlist[] = {"n", "seed", "no_build_at_enemy_stone", "replace_on_remove", NULL};
    if (!need_board()) return NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "nOpp:Batch", kwlist, &n, &seed_obj, &nbes, &ror)) return NULL;
    uint64_t seed;
    if (!read_seed(seed_obj, &seed)) return NULL;
    if (n < 1 || n > MAX_BATCH) {
        PyErr_Format(PyExc_ValueError, "a batch holds 1..%d games", MAX_BATCH);
        return NULL;
    }
    BatchObject *self = (BatchObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->games = (KState *)PyMem_Malloc((size_t)n * sizeof(KState));
    if (!self->games) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->n = n;
    self->nbes = nbes;
    self->ror = ror;
    mt_seed_u64(&self->rng, seed);
    for (Py_ssize_t i = 0; i < n; i++) new_game(&self->games[i], &self->rng, nbes, ror);
    return (PyObject *)self;
}

/* A writable C-contiguous buffer of exactly `items` items of `itemsize` bytes and format `fmt`. */
static int get_out(PyObject *obj, Py_buffer *view, Py_ssize_t items, Py_ssize_t itemsize, const char *fmt,
                   const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return 0;
    const char *f = view->format ? view->format : "B";
    if (f[0] == '=' || f[0] == '<' || f[0] == '@') f++;
    if (view->itemsize != itemsize || strcmp(f, fmt) != 0 || view->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of format %s", what, items, fmt);
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

static void write_outputs(BatchObject *self, Py_ssize_t i, float *obs, int8_t *mask, int8_t *to_move) {
    const KState *s = &self->games[i];
    encode_obs(s, s->to_move, obs + i * OBS_SIZE);
    int8_t *m = mask + i * NACTIONS;
    memset(m, 0, NACTIONS);
    uint8_t legal[MAX_LEGAL];
    int k = legal_actions(s, legal);
    for (int j = 0; j < k; j++) m[legal[j]] = 1;
    to_move[i] = s->to_move;
}

/* observe(obs, mask, to_move): the observation and legal-action mask of every game's mover. */
static PyObject *Batch_observe(BatchObject *self, PyObject *args) {
    PyObject *o_obs, *o_mask, *o_to_move;
    if (!PyArg_ParseTuple(args, "OOO:observe", &o_obs, &o_mask, &o_to_move)) return NULL;
    Py_buffer b_obs, b_mask, b_to;
    if (!get_out(o_obs, &b_obs, self->n * OBS_SIZE, 4, "f", "obs")) return NULL;
    if (!get_out(o_mask, &b_mask, self->n * NACTIONS, 1, "b", "mask")) {
        PyBuffer_Release(&b_obs);
        return NULL;
    }
    if (!get_out(o_to_move, &b_to, self->n, 1, "b", "to_move")) {
        PyBuffer_Release(&b_obs);
        PyBuffer_Release(&b_mask);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->n; i++) write_outputs(self, i, b_obs.buf, b_mask.buf, b_to.buf);
    PyBuffer_Release(&b_obs);
    PyBuffer_Release(&b_mask);
    PyBuffer_Release(&b_to);
    Py_RETURN_NONE;
}

/* step(actions, obs, mask, to_move, rewards, dones): one action per game (int16 codes) for the
   seat to move there; every action is checked before any is applied (ValueError names the first
   illegal one). A finished game writes rewards (+1/-1/0 per seat) and dones, and is dealt anew. */
static PyObject *Batch_step(BatchObject *self, PyObject *args) {
    PyObject *o_act, *o_obs, *o_mask, *o_to_move, *o_rew, *o_done;
    if (!PyArg_ParseTuple(args, "OOOOOO:step", &o_act, &o_obs, &o_mask, &o_to_move, &o_rew, &o_done)) return NULL;
    Py_buffer b[6];
    PyObject *objs[6] = {o_act, o_obs, o_mask, o_to_move, o_rew, o_done};
    const Py_ssize_t items[6] = {self->n, self->n * OBS_SIZE, self->n * NACTIONS, self->n, self->n * 2, self->n};
    const Py_ssize_t sizes[6] = {2, 4, 1, 1, 4, 1};
    const char *fmts[6] = {"h", "f", "b", "b", "f", "b"};
    const char *names[6] = {"actions", "obs", "mask", "to_move", "rewards", "dones"};
    int got = 0;
    for (; got < 6; got++)
        if (!get_out(objs[got], &b[got], items[got], sizes[got], fmts[got], names[got])) break;
    PyObject *result = NULL;
    if (got == 6) {
        const int16_t *acts = b[0].buf;
        Py_ssize_t bad = -1;
        for (Py_ssize_t i = 0; i < self->n && bad < 0; i++)
            if (acts[i] < 0 || acts[i] >= NACTIONS || !is_legal(&self->games[i], acts[i])) bad = i;
        if (bad >= 0) {
            PyErr_Format(PyExc_ValueError, "game %zd: action %d is not legal", bad, (int)acts[bad]);
        } else {
            float *rewards = b[4].buf;
            int8_t *dones = b[5].buf;
            for (Py_ssize_t i = 0; i < self->n; i++) {
                KState *s = &self->games[i];
                apply_rng(s, acts[i], &self->rng);
                rewards[2 * i] = rewards[2 * i + 1] = 0.0f;
                dones[i] = s->phase == OVER;
                if (dones[i]) {
                    if (s->winner >= 0) {
                        rewards[2 * i + s->winner] = 1.0f;
                        rewards[2 * i + 1 - s->winner] = -1.0f;
                    }
                    new_game(s, &self->rng, self->nbes, self->ror);
                }
                write_outputs(self, i, b[1].buf, b[2].buf, b[3].buf);
            }
            result = Py_None;
            Py_INCREF(result);
        }
    }
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    return result;
}

/* fields(i): the flat fields of game i (for tests and debugging). */
static PyObject *Batch_fields(BatchObject *self, PyObject *arg) {
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "no such game in the batch");
        return NULL;
    }
    PyObject *out = PyList_New(FLAT_SIZE);
    if (!out) return NULL;
    const int8_t *raw = (const int8_t *)&self->games[i];
    for (int k = 0; k < FLAT_SIZE; k++) PyList_SET_ITEM(out, k, PyLong_FromLong(raw[k]));
    return out;
}

static PyMethodDef Batch_methods[] = {
    {"observe", (PyCFunction)Batch_observe, METH_VARARGS, "observe(obs, mask, to_move)"},
    {"step", (PyCFunction)Batch_step, METH_VARARGS, "step(actions, obs, mask, to_move, rewards, dones)"},
    {"fields", (PyCFunction)Batch_fields, METH_O, "the flat fields of one game"},
    {NULL},
};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kahuna.fast._core.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Many games stepped at once: Batch(n, seed, no_build_at_enemy_stone, replace_on_remove).",
    .tp_new = Batch_new,
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_methods = Batch_methods,
};

static PyObject *fields_layout(PyObject *mod, PyObject *unused) {
    PyObject *out = PyList_New(NFIELDS_GROUPS);
    if (!out) return NULL;
    for (int i = 0; i < NFIELDS_GROUPS; i++) PyList_SET_ITEM(out, i, Py_BuildValue("(si)", FIELDS[i].name, FIELDS[i].size));
    return out;
}

#include "_netsearch.inc.c"

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS, "configure(lines, control, degree)"},
    {"fields_layout", fields_layout, METH_NOARGS, "[(name, size)] of the flat state layout"},
    {"random_games", random_games, METH_VARARGS, "random_games(seeds, nbes, ror) -> (actions, results)"},
    {"search", search, METH_VARARGS, "ISMCTS from a player view (see kahuna/ai/fast_ismcts.py)"},
    {"mt_check", mt_check, METH_VARARGS, "the C Mersenne Twister's output, for tests"},
    {"net_search", net_search, METH_VARARGS, "network-guided ISMCTS from a player view (see kahuna/ai/netsearch.py)"},
    {"observe", observe, METH_VARARGS, "observe(state, seat, out): a seat's observation (kahuna.ai.features)"},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kahuna.fast._core", "Kahuna's rules and ISMCTS in C (see kahuna/fast).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&StateType) < 0 || PyType_Ready(&BatchType) < 0 || PyType_Ready(&NetType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&StateType);
    if (PyModule_AddObject(m, "State", (PyObject *)&StateType) < 0) {
        Py_DECREF(&StateType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&BatchType);
    if (PyModule_AddObject(m, "Batch", (PyObject *)&BatchType) < 0) {
        Py_DECREF(&BatchType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&NetType);
    if (PyModule_AddObject(m, "Net", (PyObject *)&NetType) < 0) {
        Py_DECREF(&NetType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "FLAT_SIZE", FLAT_SIZE) < 0 || PyModule_AddIntConstant(m, "OBS_SIZE", OBS_SIZE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
