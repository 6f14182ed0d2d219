/*
 * Reading and checking what Python hands the extension: every entry point checks its arguments
 * and raises ValueError or TypeError instead of trusting its callers. Each function returns 1, or
 * 0 with a Python exception set.
 */
#ifndef KAHUNA_PY_ARGS_H
#define KAHUNA_PY_ARGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ismcts.h"
#include "rng.h"
#include "view.h"

/* RuntimeError unless configure() has handed over the board. */
int need_board(void);
/* A sequence of n small ints into int8_t, each in lo..hi. */
int read_int8s(PyObject *seq, int8_t *out, Py_ssize_t n, long lo, long hi, const char *what);
/* A seed in 0..2**64-1. */
int read_seed(PyObject *obj, uint64_t *out);
/* The state of a Python random.Random (getstate()[1]: 624 words and the index). */
int read_mt_state(PyObject *obj, MT *r);
/* The generator's state as random.Random.setstate takes it back (getstate()[1]); NULL on error. */
PyObject *mt_state_tuple(const MT *r);
/* An action index 0..NACTIONS-1. */
int parse_action(PyObject *arg, int *action);
/* A writable C-contiguous buffer of exactly `items` items of `itemsize` bytes and format `fmt`
   (released by the caller). */
int get_out(PyObject *obj, Py_buffer *view, Py_ssize_t items, Py_ssize_t itemsize, const char *fmt, const char *what);
/* Where a search starts: the view (kahuna.fast.layout.view_fields, the seat, the other seat's hidden
   hand slots and face-down discards), checked to be a consistent view of the seat to move, and the
   random generator's state (read_mt_state). */
int read_search_start(PyObject *fields, int seat, const int hand_slots[2], const int down_slots[2], PyObject *rng_state,
                      View *v, MT *rng);
/* {action: visits} of a search's root; NULL on error. */
PyObject *visits_dict(const RootVisits *root);

#endif
