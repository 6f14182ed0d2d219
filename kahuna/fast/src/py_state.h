/*
 * kahuna.fast._core.State: one game's state as a Python object, read from the flat fields of
 * kahuna/fast/layout.py and checked, with the referee's operations (legal actions, apply with a
 * reshuffle order, terminate, copy) and the heuristic and a random playout. kahuna.fast.state.FastState
 * wraps it with the referee's interface; illegal actions are refused with ValueError, and the
 * wrapper explains them in the referee's words.
 */
#ifndef KAHUNA_PY_STATE_H
#define KAHUNA_PY_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "rules.h"

typedef struct {
    PyObject_HEAD KState s;
} StateObject;

extern PyTypeObject StateType;

#endif
