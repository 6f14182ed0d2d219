/*
 * The rules of Kahuna in C: the board, the state, legal actions and applying them.
 *
 * A mirror of the Python referee (kahuna/rules/state.py); the referee stays the single source of
 * truth, and tests/fast plays both side by side and compares them after every action.
 *
 *  - the state is one fixed-size struct of small integers laid out like the referee's flat lists,
 *    so a copy is a memcpy and nothing is allocated while a game runs;
 *  - the board (lines, control, degree) is handed over once at run time (configure_board, from
 *    kahuna.rules.board through kahuna/fast/__init__.py), so the board file stays the one
 *    description of the archipelago.
 */
#ifndef KAHUNA_RULES_H
#define KAHUNA_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define NI 12 /* islands */
#define NL 27 /* lines */
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

/* Action indices (kahuna/rules/actions.py): builds first, then removals, replacements, discards. */
#define REMOVE_BASE 54
#define REPLACE_BASE 135
#define DISCARD_BASE 216
#define TAKE_DISPLAY_BASE 228
#define A_TAKE_DECK 240
#define A_PASS 241
#define A_END 242

enum { PLAY = 0, FINAL = 1, OVER = 2 };
/* Result reasons (kahuna/fast/layout.py REASONS): the board's, then the terminations off the board. */
enum { R_NONE = 0, R_POINTS, R_FINAL_SCORING, R_BRIDGES, R_NO_BRIDGES, R_DRAW, R_RESIGN, R_TIMEOUT, R_ABORTED, R_LEFT, R_LEFT_DRAW, R_COUNT };
#define NOBODY (-1)

/* The board, filled by configure_board. */
extern int board_ready;
extern int8_t LINE_A[NL], LINE_B[NL];
extern int8_t CONTROL[NI], DEGREE[NI];
extern int8_t ISLAND_LINES[NI][8]; /* lines of an island in line order */
extern int8_t ISLAND_NLINES[NI];
extern int8_t NB_OTHER[NI][8], NB_LINE[NI][8]; /* neighbours sorted by letter, with the line */
extern uint32_t CARD_LINES[NI];                /* bit l: line l touches the island */

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

/* The flat field layout shared with Python (kahuna/fast/layout.py): the struct's first bytes,
   up to the derived fields. */
#define FLAT_SIZE ((int)offsetof(KState, counts))

/* The board from flat line ends (2 per line, a < b), control and degree per island; NULL when it
   is accepted, else what is wrong with it (the tables are left as they were). */
const char *configure_board(const int8_t *line_ends, const int8_t *control, const int8_t *degree);

/* Recompute the derived fields (counts, hand sizes, owned lines) from the flat ones. */
void derive(KState *s);
/* What is impossible about a state read from outside (NULL when it is consistent). */
const char *check_state(const KState *s);
/* After derive: 0 when a hand is above the limit or a stone lacks its majority. */
int check_state_derived(const KState *s);

/* Every legal action in token order (as GameState.legal_actions); returns the count. */
int legal_actions(const KState *s, uint8_t *out);
int is_legal(const KState *s, int action);
/* Whether the action ends a round before the last and so needs a reshuffle order. */
int needs_reshuffle(const KState *s, int action);
/* The discard pile as 12 counts. */
void discard_pile(const KState *s, int *pile);

/* Apply a legal action (not checked here). ``order`` is the reshuffle order when the action
   needs one (needs_reshuffle), else ignored. */
void apply_unchecked(KState *s, int action, const int8_t *order, int order_len);
/* Apply with the RNG providing a reshuffle order when one is due (search and random games). */
void apply_rng(KState *s, int action, MT *rng);
/* End a running game (a result reason and the winner, -1 for none). */
void finish(KState *s, int winner, int reason);

/* A new game dealt with the RNG as GameState.new deals it. */
void new_game(KState *s, MT *rng, int nbes, int ror);
/* Play a uniformly random game to the end from ``s`` (as kahuna bench engine does on the
   referee); returns the number of actions. */
long random_game(KState *s, MT *rng);

static inline int stones_on_board(const KState *s, int p) { return STONES - s->supply_stones[p]; }
static inline int bridges_on_board(const KState *s, int p) { return BRIDGES - s->supply_bridges[p]; }

#endif
