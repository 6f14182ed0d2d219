/*
 * kahuna.fast._core.Batch: many games at once (kahuna.envs.vector.VectorKahuna). Each step takes
 * one action per game for its seat to move, writes every game's observation of the next mover's
 * view and legal-action mask into numpy buffers, and deals a finished game anew; the deals and
 * reshuffles come from one random.Random(seed) stream, as in the referee batch.
 */
#ifndef KAHUNA_PY_BATCH_H
#define KAHUNA_PY_BATCH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern PyTypeObject BatchType;

#endif
