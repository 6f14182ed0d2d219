/* The Batch type: many games stepped at once, for kahuna.envs.vector (py_batch.h). */
#include "py_batch.h"

#include <string.h>

#include "observation.h"
#include "py_args.h"
#include "rules.h"

#define MAX_BATCH 65536

typedef struct {
    PyObject_HEAD KState *games;
    Py_ssize_t n;
    int nbes, ror;
    MT rng;
} BatchObject;

static void Batch_dealloc(BatchObject *self) {
    PyMem_Free(self->games);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Batch(n, seed, no_build_at_enemy_stone, replace_on_remove): n games dealt one after the other
   from random.Random(seed), which also draws every reshuffle and every new deal. */
static PyObject *Batch_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    Py_ssize_t n;
    PyObject *seed_obj;
    int nbes, ror;
    static char *kwlist[] = {"n", "seed", "no_build_at_enemy_stone", "replace_on_remove", NULL};
    if (!need_board()) return NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "nOpp:Batch", kwlist, &n, &seed_obj, &nbes, &ror)) return NULL;
    uint64_t seed;
    if (!read_seed(seed_obj, &seed)) return NULL;
    if (n < 1 || n > MAX_BATCH) {
        PyErr_Format(PyExc_ValueError, "a batch holds 1..%d games", MAX_BATCH);
        return NULL;
    }
    BatchObject *self = (BatchObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->games = (KState *)PyMem_Malloc((size_t)n * sizeof(KState));
    if (!self->games) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->n = n;
    self->nbes = nbes;
    self->ror = ror;
    mt_seed_u64(&self->rng, seed);
    for (Py_ssize_t i = 0; i < n; i++) new_game(&self->games[i], &self->rng, nbes, ror);
    return (PyObject *)self;
}

static void write_outputs(BatchObject *self, Py_ssize_t i, float *obs, int8_t *mask, int8_t *to_move) {
    const KState *s = &self->games[i];
    encode_obs(s, s->to_move, obs + i * OBS_SIZE);
    int8_t *m = mask + i * NACTIONS;
    memset(m, 0, NACTIONS);
    uint8_t legal[MAX_LEGAL];
    int k = legal_actions(s, legal);
    for (int j = 0; j < k; j++) m[legal[j]] = 1;
    to_move[i] = s->to_move;
}

/* observe(obs, mask, to_move): the observation and legal-action mask of every game's mover. */
static PyObject *Batch_observe(BatchObject *self, PyObject *args) {
    PyObject *o_obs, *o_mask, *o_to_move;
    if (!PyArg_ParseTuple(args, "OOO:observe", &o_obs, &o_mask, &o_to_move)) return NULL;
    Py_buffer b_obs, b_mask, b_to;
    if (!get_out(o_obs, &b_obs, self->n * OBS_SIZE, 4, "f", "obs")) return NULL;
    if (!get_out(o_mask, &b_mask, self->n * NACTIONS, 1, "b", "mask")) {
        PyBuffer_Release(&b_obs);
        return NULL;
    }
    if (!get_out(o_to_move, &b_to, self->n, 1, "b", "to_move")) {
        PyBuffer_Release(&b_obs);
        PyBuffer_Release(&b_mask);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->n; i++) write_outputs(self, i, b_obs.buf, b_mask.buf, b_to.buf);
    PyBuffer_Release(&b_obs);
    PyBuffer_Release(&b_mask);
    PyBuffer_Release(&b_to);
    Py_RETURN_NONE;
}

/* step(actions, obs, mask, to_move, rewards, dones): one action per game (int16 codes) for the
   seat to move there; every action is checked before any is applied (ValueError names the first
   illegal one). A finished game writes rewards (+1/-1/0 per seat) and dones, and is dealt anew. */
static PyObject *Batch_step(BatchObject *self, PyObject *args) {
    PyObject *o_act, *o_obs, *o_mask, *o_to_move, *o_rew, *o_done;
    if (!PyArg_ParseTuple(args, "OOOOOO:step", &o_act, &o_obs, &o_mask, &o_to_move, &o_rew, &o_done)) return NULL;
    Py_buffer b[6];
    PyObject *objs[6] = {o_act, o_obs, o_mask, o_to_move, o_rew, o_done};
    const Py_ssize_t items[6] = {self->n, self->n * OBS_SIZE, self->n * NACTIONS, self->n, self->n * 2, self->n};
    const Py_ssize_t sizes[6] = {2, 4, 1, 1, 4, 1};
    const char *fmts[6] = {"h", "f", "b", "b", "f", "b"};
    const char *names[6] = {"actions", "obs", "mask", "to_move", "rewards", "dones"};
    int got = 0;
    for (; got < 6; got++)
        if (!get_out(objs[got], &b[got], items[got], sizes[got], fmts[got], names[got])) break;
    PyObject *result = NULL;
    if (got == 6) {
        const int16_t *acts = b[0].buf;
        Py_ssize_t bad = -1;
        for (Py_ssize_t i = 0; i < self->n && bad < 0; i++)
            if (acts[i] < 0 || acts[i] >= NACTIONS || !is_legal(&self->games[i], acts[i])) bad = i;
        if (bad >= 0) {
            PyErr_Format(PyExc_ValueError, "game %zd: action %d is not legal", bad, (int)acts[bad]);
        } else {
            float *rewards = b[4].buf;
            int8_t *dones = b[5].buf;
            for (Py_ssize_t i = 0; i < self->n; i++) {
                KState *s = &self->games[i];
                apply_rng(s, acts[i], &self->rng);
                rewards[2 * i] = rewards[2 * i + 1] = 0.0f;
                dones[i] = s->phase == OVER;
                if (dones[i]) {
                    if (s->winner >= 0) {
                        rewards[2 * i + s->winner] = 1.0f;
                        rewards[2 * i + 1 - s->winner] = -1.0f;
                    }
                    new_game(s, &self->rng, self->nbes, self->ror);
                }
                write_outputs(self, i, b[1].buf, b[2].buf, b[3].buf);
            }
            result = Py_None;
            Py_INCREF(result);
        }
    }
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    return result;
}

/* fields(i): the flat fields of game i (for tests and debugging). */
static PyObject *Batch_fields(BatchObject *self, PyObject *arg) {
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "no such game in the batch");
        return NULL;
    }
    PyObject *out = PyList_New(FLAT_SIZE);
    if (!out) return NULL;
    const int8_t *raw = (const int8_t *)&self->games[i];
    for (int k = 0; k < FLAT_SIZE; k++) PyList_SET_ITEM(out, k, PyLong_FromLong(raw[k]));
    return out;
}

static PyMethodDef Batch_methods[] = {
    {"observe", (PyCFunction)Batch_observe, METH_VARARGS, "observe(obs, mask, to_move)"},
    {"step", (PyCFunction)Batch_step, METH_VARARGS, "step(actions, obs, mask, to_move, rewards, dones)"},
    {"fields", (PyCFunction)Batch_fields, METH_O, "the flat fields of one game"},
    {NULL},
};

PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kahuna.fast._core.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Many games stepped at once: Batch(n, seed, no_build_at_enemy_stone, replace_on_remove).",
    .tp_new = Batch_new,
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_methods = Batch_methods,
};
