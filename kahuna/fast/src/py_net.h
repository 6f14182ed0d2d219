/*
 * kahuna.fast._core.Net: a policy/value network (net.h) made from kahuna.ai.agents.net's float32 arrays,
 * checked for shape and finiteness, for the network search and for timing one forward pass.
 */
#ifndef KAHUNA_PY_NET_H
#define KAHUNA_PY_NET_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "net.h"

typedef struct {
    PyObject_HEAD Net net;
} NetObject;

extern PyTypeObject NetType;

#endif
