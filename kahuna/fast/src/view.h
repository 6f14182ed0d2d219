/*
 * The player view a search starts from, and its determinizations: the worlds the searches sample
 * (kahuna.rules.determinize), with the cards the viewer cannot see dealt from the unseen pool.
 */
#ifndef KAHUNA_VIEW_H
#define KAHUNA_VIEW_H

#include "rng.h"
#include "rules.h"

typedef struct {
    KState base; /* public state + the viewer's hand and face-down discards + known cards */
    int seat;
    int hand_slots[2], down_slots[2];
    int8_t pool[NCARDS]; /* the unseen cards, in card order */
    int pool_len;
} View;

/* Complete a view whose ``base`` holds the flat fields of kahuna.fast.layout.view_fields (the
   other seat's hand holds only its known cards, its face-down discards are 0, the deck is
   deck_len zeros): the seat to move, and the other seat's hidden hand slots and face-down
   discards. NULL when it is a consistent view of the seat to move, else what is wrong. */
const char *view_init(View *v, int seat, const int hand_slots[2], const int down_slots[2]);

/* One world of the view: the unseen pool shuffled by the RNG into the hidden places. */
void determinize(const View *v, MT *rng, KState *out);

#endif
