/*
 * The observation of a seat's view as the network reads it: float32[OBS_SIZE], the layout of
 * kahuna.ai.agents.features (docs/research.md). Only what the seat may see goes in.
 */
#ifndef KAHUNA_OBSERVATION_H
#define KAHUNA_OBSERVATION_H

#include "rules.h"

#define OBS_SIZE 173

/* The observation of seat `me`'s view, as kahuna.ai.agents.features.encode_view writes it (each value a
   double rounded once to float, as numpy does when storing a Python float). */
void encode_obs(const KState *s, int me, float *obs);

#endif
