/*
 * The search heuristic (kahuna/ai/agents/heuristic.py) in C: a position's value for a seat in points,
 * squashed to a win probability. Floating point follows the Python expressions operation by
 * operation (setup.py forbids fused multiply-adds), so both give equal values, bit for bit.
 */
#ifndef KAHUNA_HEURISTIC_H
#define KAHUNA_HEURISTIC_H

#include "rules.h"

/* The heuristic's weights (heuristic.Weights, same order): a search is handed them at run time so
   that tuned weights play in C exactly as in Python. */
typedef struct {
    double stone, degree_bonus, fragile_loss, claim_threat, progress, bridge, strike, card, scale;
} HWeights;

extern const HWeights DEFAULT_HWEIGHTS;

/* Whether the weights are finite with a positive scale (what a search accepts). */
int hweights_valid(const HWeights *w);
/* Seat 0's win probability with both hands known (exact beliefs). */
double exact_win_probability(const KState *s, const HWeights *w);

#endif
