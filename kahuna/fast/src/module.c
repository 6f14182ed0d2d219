/*
 * kahuna.fast._core: Kahuna's rules, ISMCTS and the network search in C, for speed.
 *
 * A mirror of the Python referee (kahuna/rules) and of the searches (kahuna/ai/agents), which
 * stay the single source of truth: tests/fast plays both side by side and compares them. The
 * engine is plain C without Python, one concern per file (each .h says why it looks as it does):
 *
 *   rules      the board, the state, legal actions and applying them
 *   rng        CPython's Mersenne Twister, so that the same seed gives the same games and searches
 *   heuristic  the search heuristic, equal to Python's bit for bit
 *   view       a player view and its determinizations
 *   ismcts     the playout policy and ISMCTS
 *   observation, net, netsearch   the network's input, the network, and the network search
 *
 * The py_*.c files are what Python sees: they read and check every argument (ValueError and
 * TypeError, never a crash) and release the GIL while a search or a batch of games runs. This file
 * is the module: the board handed over from kahuna.rules.board, the flat layout, random games and
 * the generator check, and the table of functions and types.
 */
#include "py_args.h" /* first: Python.h comes before the standard headers */
#include "py_batch.h"
#include "py_net.h"
#include "py_search.h"
#include "py_state.h"

#include "netsearch.h"
#include "observation.h"
#include "rules.h"

/* configure(lines, control, degree): the board from kahuna.rules.board. */
static PyObject *configure(PyObject *mod, PyObject *args) {
    PyObject *lines, *control, *degree;
    if (!PyArg_ParseTuple(args, "OOO:configure", &lines, &control, &degree)) return NULL;
    int8_t flat[2 * NL], ctl[NI], deg[NI];
    if (!read_int8s(lines, flat, 2 * NL, 0, NI - 1, "lines")) return NULL;
    if (!read_int8s(control, ctl, NI, 1, 8, "control")) return NULL;
    if (!read_int8s(degree, deg, NI, 1, 8, "degree")) return NULL;
    const char *problem = configure_board(flat, ctl, deg);
    if (problem) {
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The flat field layout shared with Python (kahuna/fast/layout.py LAYOUT says the same). */
static const struct {
    const char *name;
    int size;
} FIELDS[] = {
    {"round", 1},          {"phase", 1},         {"to_move", 1},   {"declined", 1},
    {"final_turns", 1},    {"no_build_at_enemy_stone", 1},         {"replace_on_remove", 1},
    {"winner", 1},         {"reason", 1},        {"bridges", NL},  {"stones", NI},
    {"supply_bridges", 2}, {"supply_stones", 2}, {"hands", 2 * NI}, {"display", NI},
    {"deck_len", 1},       {"deck", NCARDS},     {"discard_up", NI}, {"discard_down", 2 * NI},
    {"points", 2 * ROUNDS}, {"known", 2 * NI},
};
#define NFIELDS_GROUPS ((int)(sizeof(FIELDS) / sizeof(FIELDS[0])))

static PyObject *fields_layout(PyObject *mod, PyObject *unused) {
    PyObject *out = PyList_New(NFIELDS_GROUPS);
    if (!out) return NULL;
    for (int i = 0; i < NFIELDS_GROUPS; i++) PyList_SET_ITEM(out, i, Py_BuildValue("(si)", FIELDS[i].name, FIELDS[i].size));
    return out;
}

/* random_games(seeds, no_build_at_enemy_stone, replace_on_remove) -> (actions, [(winner, reason)...])
   Plays one uniformly random game per seed (deal and choices as kahuna bench engine does with
   random.Random(seed)); returns the total of actions and a result per game. */
static PyObject *random_games(PyObject *mod, PyObject *args) {
    PyObject *seeds;
    int nbes, ror;
    if (!need_board()) return NULL;
    if (!PyArg_ParseTuple(args, "Opp:random_games", &seeds, &nbes, &ror)) return NULL;
    PyObject *fast = PySequence_Fast(seeds, "seeds must be a sequence");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    uint64_t *vals = (uint64_t *)PyMem_Malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
    int8_t *results = (int8_t *)PyMem_Malloc((size_t)(n ? n : 1) * 2);
    if (!vals || !results) {
        PyMem_Free(vals);
        PyMem_Free(results);
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!read_seed(PySequence_Fast_GET_ITEM(fast, i), &vals[i])) {
            PyMem_Free(vals);
            PyMem_Free(results);
            Py_DECREF(fast);
            return NULL;
        }
    Py_DECREF(fast);
    long long total = 0;
    Py_BEGIN_ALLOW_THREADS;
    MT rng;
    KState s;
    for (Py_ssize_t g = 0; g < n; g++) {
        mt_seed_u64(&rng, vals[g]);
        new_game(&s, &rng, nbes, ror);
        total += random_game(&s, &rng);
        results[2 * g] = s.winner;
        results[2 * g + 1] = s.reason;
    }
    Py_END_ALLOW_THREADS;
    PyObject *list = PyList_New(n);
    if (!list) {
        PyMem_Free(vals);
        PyMem_Free(results);
        return NULL;
    }
    for (Py_ssize_t g = 0; g < n; g++)
        PyList_SET_ITEM(list, g, Py_BuildValue("(ii)", results[2 * g], results[2 * g + 1]));
    PyMem_Free(vals);
    PyMem_Free(results);
    return Py_BuildValue("(LN)", total, list);
}

/* mt_check(seed, n, below) -> (randoms, belows, shuffled): for the test that the C generator is
   CPython's. */
static PyObject *mt_check(PyObject *mod, PyObject *args) {
    PyObject *seed_obj;
    int n, below;
    if (!PyArg_ParseTuple(args, "Oii:mt_check", &seed_obj, &n, &below)) return NULL;
    uint64_t seed;
    if (!read_seed(seed_obj, &seed)) return NULL;
    if (n < 0 || n > 100000 || below < 1 || below > 1000000) {
        PyErr_SetString(PyExc_ValueError, "0 <= n <= 100000 and 1 <= below <= 1000000");
        return NULL;
    }
    MT r;
    mt_seed_u64(&r, seed);
    PyObject *randoms = PyList_New(n), *belows = PyList_New(n);
    if (!randoms || !belows) {
        Py_XDECREF(randoms);
        Py_XDECREF(belows);
        return NULL;
    }
    for (int i = 0; i < n; i++) PyList_SET_ITEM(randoms, i, PyFloat_FromDouble(mt_random(&r)));
    for (int i = 0; i < n; i++) PyList_SET_ITEM(belows, i, PyLong_FromLong(mt_below(&r, below)));
    int8_t cards[NCARDS];
    for (int i = 0; i < NCARDS; i++) cards[i] = (int8_t)(i / 2);
    mt_shuffle(&r, cards, NCARDS);
    PyObject *shuffled = PyList_New(NCARDS);
    if (!shuffled) {
        Py_DECREF(randoms);
        Py_DECREF(belows);
        return NULL;
    }
    for (int i = 0; i < NCARDS; i++) PyList_SET_ITEM(shuffled, i, PyLong_FromLong(cards[i]));
    return Py_BuildValue("(NNN)", randoms, belows, shuffled);
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS, "configure(lines, control, degree)"},
    {"fields_layout", fields_layout, METH_NOARGS, "[(name, size)] of the flat state layout"},
    {"random_games", random_games, METH_VARARGS, "random_games(seeds, nbes, ror) -> (actions, results)"},
    {"search", py_search, METH_VARARGS, "ISMCTS from a player view (see kahuna/ai/agents/fast_ismcts.py)"},
    {"mt_check", mt_check, METH_VARARGS, "the C Mersenne Twister's output, for tests"},
    {"net_search", py_net_search, METH_VARARGS, "network-guided ISMCTS from a player view (see kahuna/ai/agents/netsearch.py)"},
    {"net_search_timed", py_net_search_timed, METH_VARARGS, "one worker of a network search by time (netsearch.h)"},
    {"observe", py_observe, METH_VARARGS, "observe(state, seat, out): a seat's observation (kahuna.ai.agents.features)"},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kahuna.fast._core", "Kahuna's rules and searches in C (see kahuna/fast).", -1,
    module_methods,
};

static int add_type(PyObject *m, const char *name, PyTypeObject *type) {
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&StateType) < 0 || PyType_Ready(&BatchType) < 0 || PyType_Ready(&NetType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (add_type(m, "State", &StateType) < 0 || add_type(m, "Batch", &BatchType) < 0 ||
        add_type(m, "Net", &NetType) < 0 || PyModule_AddIntConstant(m, "FLAT_SIZE", FLAT_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "OBS_SIZE", OBS_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "NETSEARCH_BOARD_HEADER", NETSEARCH_BOARD_HEADER) < 0 ||
        PyModule_AddIntConstant(m, "NETSEARCH_BOARD_ROW", NETSEARCH_BOARD_ROW) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
