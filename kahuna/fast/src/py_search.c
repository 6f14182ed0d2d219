/* The searches and the observation as module functions (py_search.h). */
#include "py_search.h"

#include "heuristic.h"
#include "ismcts.h"
#include "netsearch.h"
#include "observation.h"
#include "py_args.h"
#include "py_net.h"
#include "py_state.h"

/* search(view_fields, seat, hand_slots, down_slots, rng_state, iterations, seconds, c, playout, weights)
   -> (visits {action: n}, iterations done). view_fields: the flat layout with the hidden cards
   left out (the other seat's hand holds only its known cards, its face-down discards are 0, the
   deck is deck_len zeros); weights: the nine heuristic weights, in HWeights order. */
PyObject *py_search(PyObject *mod, PyObject *args) {
    PyObject *fields, *rng_state;
    int seat, hs[2], ds[2];
    IsmctsConfig cfg;
    HWeights *w = &cfg.weights;
    if (!need_board()) return NULL;
    if (!PyArg_ParseTuple(args, "Oi(ii)(ii)Oiddi(ddddddddd):search", &fields, &seat, &hs[0], &hs[1], &ds[0], &ds[1],
                          &rng_state, &cfg.iterations, &cfg.seconds, &cfg.c, &cfg.playout_turns, &w->stone,
                          &w->degree_bonus, &w->fragile_loss, &w->claim_threat, &w->progress, &w->bridge, &w->strike,
                          &w->card, &w->scale))
        return NULL;
    if (!hweights_valid(w)) {
        PyErr_SetString(PyExc_ValueError, "heuristic weights must be finite and the scale positive");
        return NULL;
    }
    if (cfg.iterations < 1 || cfg.iterations > ISMCTS_MAX_ITERATIONS || !(cfg.seconds >= 0.0 && cfg.seconds <= 3600.0) ||
        !(cfg.c >= 0.0 && cfg.c <= 100.0) || cfg.playout_turns < 0 || cfg.playout_turns > 1000) {
        PyErr_SetString(PyExc_ValueError, "bad search budget or settings");
        return NULL;
    }
    View v;
    MT rng;
    if (!read_search_start(fields, seat, hs, ds, rng_state, &v, &rng)) return NULL;
    RootVisits root;
    int done;
    Py_BEGIN_ALLOW_THREADS;
    done = ismcts_search(&v, &rng, &cfg, &root);
    Py_END_ALLOW_THREADS;
    if (done < 0) return PyErr_NoMemory();
    return Py_BuildValue("(Ni)", visits_dict(&root), done);
}

/* net_search(net, view_fields, seat, hand_slots, down_slots, rng_state, iterations, c, mix, playout,
   weights, stop=False, share=0.0) -> visits {action: n}: `iterations` iterations of netsearch.search
   from the view (read as by search above) with a Net; mix in [0, 1] weighs the heuristic playout of
   `playout` turns (with the nine heuristic weights, HWeights order) against the network's value at
   the leaves; with stop, fewer once the most visited root action is settled; with share in (0, 1],
   fewer once it holds that share of the root's visits (from a quarter of the budget on). */
PyObject *py_net_search(PyObject *mod, PyObject *args) {
    PyObject *fields, *rng_state;
    NetObject *net;
    int seat, hs[2], ds[2];
    NetSearchConfig cfg = {.stop = 0, .share = 0.0};
    HWeights *w = &cfg.weights;
    if (!need_board()) return NULL;
    if (!PyArg_ParseTuple(args, "O!Oi(ii)(ii)Oiddi(ddddddddd)|pd:net_search", &NetType, &net, &fields, &seat, &hs[0],
                          &hs[1], &ds[0], &ds[1], &rng_state, &cfg.iterations, &cfg.c, &cfg.mix, &cfg.playout_turns,
                          &w->stone, &w->degree_bonus, &w->fragile_loss, &w->claim_threat, &w->progress, &w->bridge,
                          &w->strike, &w->card, &w->scale, &cfg.stop, &cfg.share))
        return NULL;
    if (cfg.iterations < 1 || cfg.iterations > NETSEARCH_MAX_ITERATIONS || !(cfg.c >= 0.0 && cfg.c <= 1e6) ||
        !(cfg.mix >= 0.0 && cfg.mix <= 1.0) || !(cfg.share >= 0.0 && cfg.share <= 1.0) || cfg.playout_turns < 0 ||
        cfg.playout_turns > 1000 || !hweights_valid(w)) {
        PyErr_SetString(PyExc_ValueError, "bad net search settings");
        return NULL;
    }
    View v;
    MT rng;
    if (!read_search_start(fields, seat, hs, ds, rng_state, &v, &rng)) return NULL;
    RootVisits root;
    int failed;
    Py_BEGIN_ALLOW_THREADS;
    failed = netsearch_search(&net->net, &v, &rng, &cfg, &root) < 0;
    Py_END_ALLOW_THREADS;
    if (failed) return PyErr_NoMemory();
    return visits_dict(&root);
}

/* net_search_timed(net, view_fields, seat, hand_slots, down_slots, rng_state, iterations, c, mix, playout,
   weights, seconds, hard_seconds, close, board, workers, worker) -> (visits {action: n}, iterations
   done): one worker of a search by time (netsearch_timed in netsearch.h, which gives the board's
   layout: a writable buffer of doubles, zeroed by the caller, shared by the `workers` calls that run
   in threads at once); the other arguments as net_search's, `iterations` this worker's most. */
PyObject *py_net_search_timed(PyObject *mod, PyObject *args) {
    PyObject *fields, *rng_state, *board;
    NetObject *net;
    int seat, hs[2], ds[2], done;
    NetSearchConfig cfg = {.stop = 0, .share = 0.0};
    NetTimer timer;
    HWeights *w = &cfg.weights;
    if (!need_board()) return NULL;
    if (!PyArg_ParseTuple(args, "O!Oi(ii)(ii)Oiddi(ddddddddd)dddOii:net_search_timed", &NetType, &net, &fields, &seat,
                          &hs[0], &hs[1], &ds[0], &ds[1], &rng_state, &cfg.iterations, &cfg.c, &cfg.mix,
                          &cfg.playout_turns, &w->stone, &w->degree_bonus, &w->fragile_loss, &w->claim_threat,
                          &w->progress, &w->bridge, &w->strike, &w->card, &w->scale, &timer.seconds,
                          &timer.hard_seconds, &timer.close, &board, &timer.workers, &timer.worker))
        return NULL;
    if (cfg.iterations < 1 || cfg.iterations > NETSEARCH_MAX_ITERATIONS || !(cfg.c >= 0.0 && cfg.c <= 1e6) ||
        !(cfg.mix >= 0.0 && cfg.mix <= 1.0) || cfg.playout_turns < 0 || cfg.playout_turns > 1000 ||
        !hweights_valid(w)) {
        PyErr_SetString(PyExc_ValueError, "bad net search settings");
        return NULL;
    }
    if (!(timer.seconds > 0.0 && timer.hard_seconds >= timer.seconds && timer.hard_seconds <= 3600.0) ||
        !(timer.close >= 0.0 && timer.close <= 1.0) || timer.workers < 1 || timer.workers > 256 || timer.worker < 0 ||
        timer.worker >= timer.workers) {
        PyErr_SetString(PyExc_ValueError, "bad time budget: 0 < seconds <= hard_seconds <= 3600, 0 <= close <= 1, "
                                          "0 <= worker < workers <= 256");
        return NULL;
    }
    View v;
    MT rng;
    if (!read_search_start(fields, seat, hs, ds, rng_state, &v, &rng)) return NULL;
    Py_buffer b;
    Py_ssize_t cells = NETSEARCH_BOARD_HEADER + (Py_ssize_t)timer.workers * NETSEARCH_BOARD_ROW;
    if (!get_out(board, &b, cells, sizeof(double), "d", "board")) return NULL;
    timer.board = (volatile double *)b.buf;
    RootVisits root;
    Py_BEGIN_ALLOW_THREADS;
    done = netsearch_timed(&net->net, &v, &rng, &cfg, &timer, &root);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&b);
    if (done < 0) return PyErr_NoMemory();
    return Py_BuildValue("(Ni)", visits_dict(&root), done);
}

/* observe(state, seat, out): the observation of `seat`'s view of a State into a float32[OBS_SIZE]
   buffer, equal to kahuna.ai.agents.features.encode_view(view_of(state, seat)) (tests/fast checks it). */
PyObject *py_observe(PyObject *mod, PyObject *args) {
    PyObject *state, *out;
    int seat;
    if (!PyArg_ParseTuple(args, "O!iO:observe", &StateType, &state, &seat, &out)) return NULL;
    if (seat < 0 || seat > 1) {
        PyErr_SetString(PyExc_ValueError, "seat must be 0 or 1");
        return NULL;
    }
    Py_buffer b;
    if (!get_out(out, &b, OBS_SIZE, 4, "f", "out")) return NULL;
    encode_obs(&((StateObject *)state)->s, seat, (float *)b.buf);
    PyBuffer_Release(&b);
    Py_RETURN_NONE;
}
