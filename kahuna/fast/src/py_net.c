/* The Net type: the policy/value network as a Python object (py_net.h). */
#include "py_net.h"

#include <math.h>
#include <string.h>

#include "observation.h"
#include "py_args.h"
#include "rules.h"

/* A C-contiguous float32 buffer of the given shape (cols 0: one dimension). */
static int get_floats(PyObject *obj, Py_buffer *view, Py_ssize_t rows, Py_ssize_t cols, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_ND | PyBUF_C_CONTIGUOUS) < 0) return 0;
    const char *f = view->format ? view->format : "B";
    if (f[0] == '=' || f[0] == '<' || f[0] == '@') f++;
    int ok = view->itemsize == 4 && strcmp(f, "f") == 0;
    if (ok && cols) ok = view->ndim == 2 && view->shape[0] == rows && view->shape[1] == cols;
    else if (ok) ok = view->ndim == 1 && view->shape[0] == rows;
    if (!ok) {
        if (cols) PyErr_Format(PyExc_ValueError, "%s: expected float32 of shape (%zd, %zd)", what, rows, cols);
        else PyErr_Format(PyExc_ValueError, "%s: expected float32 of shape (%zd,)", what, rows);
        PyBuffer_Release(view);
        return 0;
    }
    const float *x = (const float *)view->buf;
    for (Py_ssize_t i = 0; i < view->len / 4; i++)
        if (!isfinite(x[i])) {
            PyErr_Format(PyExc_ValueError, "%s: the weights must be finite", what);
            PyBuffer_Release(view);
            return 0;
        }
    return 1;
}

/* Net(w1, b1, w2, b2, wp, bp, wv, bv, *, wide=True): the arrays of kahuna.ai.agents.net.LAYERS, float32,
   copied; wide=False keeps to the portable kernel even on a processor with AVX2 (for the test
   that both give the same numbers). */
static PyObject *Net_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *o[8];
    int wide = 1;
    static char *kwlist[] = {"w1", "b1", "w2", "b2", "wp", "bp", "wv", "bv", "wide", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOOO|$p:Net", kwlist, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                                     &o[6], &o[7], &wide))
        return NULL;
    Py_buffer b[8];
    if (PyObject_GetBuffer(o[0], &b[0], PyBUF_FORMAT | PyBUF_ND | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    Py_ssize_t h = b[0].ndim == 2 ? b[0].shape[1] : 0;
    PyBuffer_Release(&b[0]);
    if (h < 1 || h > NET_MAX_HIDDEN) {
        PyErr_Format(PyExc_ValueError, "w1: expected a float32 matrix of %d rows and 1..%d columns", OBS_SIZE,
                     NET_MAX_HIDDEN);
        return NULL;
    }
    const Py_ssize_t rows[8] = {OBS_SIZE, h, h, h, h, NACTIONS, h, 1};
    const Py_ssize_t cols[8] = {h, 0, h, 0, NACTIONS, 0, 1, 0};
    const char *names[8] = {"w1", "b1", "w2", "b2", "wp", "bp", "wv", "bv"};
    int got = 0;
    for (; got < 8; got++)
        if (!get_floats(o[got], &b[got], rows[got], cols[got], names[got])) break;
    NetObject *self = NULL;
    if (got == 8) self = (NetObject *)type->tp_alloc(type, 0);
    if (self && net_init(&self->net, (int)h, b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf,
                         ((const float *)b[7].buf)[0], wide) < 0) {
        Py_DECREF(self);
        self = NULL;
        PyErr_NoMemory();
    }
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return (PyObject *)self;
}

static void Net_dealloc(NetObject *self) {
    net_free(&self->net);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* An observation argument: a C-contiguous float32 buffer of OBS_SIZE items. */
static int get_obs(PyObject *obj, Py_buffer *view) {
    if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return 0;
    const char *f = view->format ? view->format : "B";
    if (f[0] == '=' || f[0] == '<' || f[0] == '@') f++;
    if (view->itemsize != 4 || strcmp(f, "f") != 0 || view->len != OBS_SIZE * 4) {
        PyErr_Format(PyExc_ValueError, "obs: expected %d float32 values", OBS_SIZE);
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

/* evaluate(obs, actions, repeat=1) -> (win probability, [logit of each action]): one forward
   pass as the search makes it (for the tests, which compare it with Network.hidden/logit, and
   for `kahuna bench engine --net`, which times `repeat` passes). */
static PyObject *Net_evaluate(NetObject *self, PyObject *args) {
    PyObject *obs_obj, *actions_obj;
    int repeat = 1;
    if (!PyArg_ParseTuple(args, "OO|i:evaluate", &obs_obj, &actions_obj, &repeat)) return NULL;
    if (repeat < 1 || repeat > 100000000) {
        PyErr_SetString(PyExc_ValueError, "repeat must be 1..100000000");
        return NULL;
    }
    Py_ssize_t n = PySequence_Size(actions_obj);
    if (n < 0) return NULL;
    if (n > NACTIONS) {
        PyErr_SetString(PyExc_ValueError, "too many actions");
        return NULL;
    }
    uint8_t codes[NACTIONS];
    {
        PyObject *fast = PySequence_Fast(actions_obj, "actions must be a sequence");
        if (!fast) return NULL;
        for (Py_ssize_t k = 0; k < n; k++) {
            int a;
            if (!parse_action(PySequence_Fast_GET_ITEM(fast, k), &a)) {
                Py_DECREF(fast);
                return NULL;
            }
            codes[k] = (uint8_t)a;
        }
        Py_DECREF(fast);
    }
    Py_buffer ob;
    if (!get_obs(obs_obj, &ob)) return NULL;
    uint16_t index[NET_MAX_HIDDEN];
    double value[NET_MAX_HIDDEN], logits[NACTIONS];
    Hidden h = {0, index, value};
    double v = 0.0;
    Py_BEGIN_ALLOW_THREADS;
    for (int r = 0; r < repeat; r++) {
        v = net_forward(&self->net, (const float *)ob.buf, &h);
        net_logits(&self->net, &h, codes, (int)n, logits);
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&ob);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyFloat_FromDouble(logits[k]);
        if (!x) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, x);
    }
    return Py_BuildValue("(dN)", v, list);
}

static PyObject *Net_get_hidden(NetObject *self, void *c) { return PyLong_FromLong(self->net.hidden); }
static PyObject *Net_get_avx2(NetObject *self, void *c) { return PyBool_FromLong(self->net.wide); }

static PyGetSetDef Net_getset[] = {
    {"hidden", (getter)Net_get_hidden, NULL, "the width of the hidden layers", NULL},
    {"avx2", (getter)Net_get_avx2, NULL, "whether the layers run on AVX2", NULL},
    {NULL},
};

static PyMethodDef Net_methods[] = {
    {"evaluate", (PyCFunction)Net_evaluate, METH_VARARGS, "evaluate(obs, actions, repeat=1) -> (value, logits)"},
    {NULL},
};

PyTypeObject NetType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kahuna.fast._core.Net",
    .tp_basicsize = sizeof(NetObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A policy/value network in C: Net(w1, b1, w2, b2, wp, bp, wv, bv), float32 arrays.",
    .tp_new = Net_new,
    .tp_dealloc = (destructor)Net_dealloc,
    .tp_methods = Net_methods,
    .tp_getset = Net_getset,
};

