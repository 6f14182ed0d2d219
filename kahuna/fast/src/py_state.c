/* The State type: one game's state in C, for kahuna.fast.state.FastState (py_state.h). */
#include "py_state.h"

#include <string.h>

#include "heuristic.h"
#include "py_args.h"

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
   a termination's code (resign, timeout, aborted, left, left-draw), winner the seat that wins (-1
   only when aborted or left-draw).
   ValueError, state unchanged, for a game already over or a result no termination gives. */
static PyObject *State_terminate(StateObject *self, PyObject *args) {
    int winner, reason;
    if (!PyArg_ParseTuple(args, "ii:terminate", &winner, &reason)) return NULL;
    if (self->s.phase == OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is over");
        return NULL;
    }
    int no_winner = reason == R_ABORTED || reason == R_LEFT_DRAW;
    if (reason < R_RESIGN || reason >= R_COUNT || winner < -1 || winner > 1 || (winner < 0) != no_winner) {
        PyErr_SetString(PyExc_ValueError, "a termination is resign, timeout or left with a winner, or aborted or left-draw without");
        return NULL;
    }
    finish(&self->s, winner, reason);
    Py_RETURN_NONE;
}

static PyObject *State_heuristic(StateObject *self, PyObject *unused) {
    return PyFloat_FromDouble(exact_win_probability(&self->s, &DEFAULT_HWEIGHTS));
}

/* playout(rng_state) -> (winner, rng_state): a uniformly random playout of a copy of the state
   to the end, reshuffles included, drawn from a Python random.Random's state (getstate()[1]) as
   the Python loop `apply(legal[randrange(len(legal))])` over the referee or FastState draws them:
   the same choices in C, which OpenSpiel's ISMCTS spends most of its time on. Returns the winner
   (-1: a draw) and the generator's state afterwards, for random.Random.setstate. */
static PyObject *State_playout(StateObject *self, PyObject *arg) {
    MT rng;
    if (!read_mt_state(arg, &rng)) return NULL;
    KState s = self->s;
    random_game(&s, &rng);
    return Py_BuildValue("(iN)", s.winner, mt_state_tuple(&rng));
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

PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kahuna.fast._core.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A Kahuna state in C: State(fields) with the flat layout of FIELDS.",
    .tp_new = State_new,
    .tp_methods = State_methods,
    .tp_getset = State_getset,
};
