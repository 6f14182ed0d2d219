/* Reading and checking Python arguments (py_args.h). */
#include "py_args.h"

#include <string.h>

int need_board(void) {
    if (!board_ready) {
        PyErr_SetString(PyExc_RuntimeError, "kahuna.fast._core.configure() has not been called");
        return 0;
    }
    return 1;
}

int read_int8s(PyObject *seq, int8_t *out, Py_ssize_t n, long lo, long hi, const char *what) {
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

int read_seed(PyObject *obj, uint64_t *out) {
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

int read_mt_state(PyObject *obj, MT *r) {
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

PyObject *mt_state_tuple(const MT *r) {
    PyObject *words = PyTuple_New(625);
    if (!words) return NULL;
    for (int i = 0; i < 624; i++) {
        PyObject *w = PyLong_FromUnsignedLong(r->mt[i]);
        if (!w) {
            Py_DECREF(words);
            return NULL;
        }
        PyTuple_SET_ITEM(words, i, w);
    }
    PyObject *index = PyLong_FromLong(r->index);
    if (!index) {
        Py_DECREF(words);
        return NULL;
    }
    PyTuple_SET_ITEM(words, 624, index);
    return words;
}

int parse_action(PyObject *arg, int *action) {
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return 0;
    if (a < 0 || a >= NACTIONS) {
        PyErr_Format(PyExc_ValueError, "no action has index %ld (0-%d)", a, NACTIONS - 1);
        return 0;
    }
    *action = (int)a;
    return 1;
}

int get_out(PyObject *obj, Py_buffer *view, Py_ssize_t items, Py_ssize_t itemsize, const char *fmt, const char *what) {
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

int read_search_start(PyObject *fields, int seat, const int hs[2], const int ds[2], PyObject *rng_state, View *v,
                      MT *rng) {
    memset(v, 0, sizeof *v);
    if (!read_int8s(fields, (int8_t *)&v->base, FLAT_SIZE, -1, 127, "view fields")) return 0;
    const char *problem = view_init(v, seat, hs, ds);
    if (problem) {
        PyErr_Format(PyExc_ValueError, "inconsistent view: %s", problem);
        return 0;
    }
    return read_mt_state(rng_state, rng);
}

PyObject *visits_dict(const RootVisits *root) {
    PyObject *out = PyDict_New();
    for (int i = 0; out && i < root->n; i++) {
        PyObject *k = PyLong_FromLong(root->action[i]), *val = PyLong_FromLong(root->visits[i]);
        if (!k || !val || PyDict_SetItem(out, k, val) < 0) Py_CLEAR(out);
        Py_XDECREF(k);
        Py_XDECREF(val);
    }
    return out;
}
