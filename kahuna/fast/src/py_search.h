/*
 * The searches and the observation as module functions: search (ISMCTS, ismcts.h), net_search
 * and net_search_timed (netsearch.h) and observe (observation.h). Each reads and checks its arguments with the GIL,
 * then searches without it, so Python threads can run several searches at once.
 */
#ifndef KAHUNA_PY_SEARCH_H
#define KAHUNA_PY_SEARCH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *py_search(PyObject *mod, PyObject *args);
PyObject *py_net_search(PyObject *mod, PyObject *args);
PyObject *py_net_search_timed(PyObject *mod, PyObject *args);
PyObject *py_observe(PyObject *mod, PyObject *args);

#endif
