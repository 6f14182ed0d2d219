/*
 * The network-guided ISMCTS in C (kahuna/ai/netsearch.py is its Python twin), #included by
 * _core.c after the vectorised batch section so that it can use the rules, the playout, the
 * determinization, the view reader and the observation encoder (encode_obs) defined there.
 *
 * Why it looks like this:
 *  - the network (kahuna/ai/net.py: two ReLU layers, a policy head of NACTIONS logits, a value
 *    head) is copied once into a Net object, so a search converts no weights; every product and
 *    sum is done in double (the weights are stored as doubles, each exactly its float32), in a
 *    fixed order (inputs, then hidden units, by increasing index), which Network.hidden and
 *    Network.logit repeat in Python, so both give the same numbers bit for bit (setup.py forbids
 *    fused multiply-adds);
 *  - the forward pass is cheap because it is sparse: zero inputs and units that the ReLU zeroed
 *    are skipped (adding 0·w changes nothing), each layer adds whole rows into blocks of units
 *    held in vector registers (rows padded with zeros to a multiple of the block), and a policy
 *    logit is computed only for an action some world offers at that node, from the node's last
 *    hidden layer, which the tree keeps;
 *  - the search follows netsearch.py step by step with CPython's random stream, so for the same
 *    view, network, settings and seed it gives the same root visits (tests/fast checks it).
 */

#define NET_MAX_HIDDEN 1024 /* bounds the forward pass's stack arrays */
#define NET_PAD 32          /* rows are padded to a multiple of the blocks below */
#define NET_BLOCK2 16       /* units the portable layer keeps in registers (8 pairs) */
#define NET_BLOCK4 32       /* units the AVX2 layer keeps in registers (8 fours) */
#define NET_MAX_ITERATIONS 10000000
#define NET_MAX_DEPTH 1024

typedef struct {
    PyObject_HEAD int hidden; /* width of both hidden layers */
    int padded;               /* hidden rounded up to NET_PAD: the row length of w1 and w2 */
    int avx2;                 /* whether the layers use the AVX2 copy */
    /* The weights as doubles (each float32 exactly), zero-padded rows: */
    double *w1;               /* [OBS_SIZE][padded] */
    double *b1, *w2, *b2;     /* [padded], [hidden][padded], [padded] */
    double *wpt;              /* the policy head transposed: [NACTIONS][hidden] */
    double *bp, *wv;          /* [NACTIONS], [hidden] */
    double bv;
    double *block; /* the one allocation holding every array */
} NetObject;

static PyTypeObject NetType;

/* The last hidden layer of a forward pass, kept sparse: its non-zero units by increasing index. */
typedef struct {
    int n;
    uint16_t *index;
    double *value;
} Hidden;

/* Vectors of doubles (GCC and clang extensions, as the rest of the core's builtins require):
   element-wise arithmetic, so no sum is reordered. The portable layer uses pairs (SSE2 on every
   x86-64, NEON on arm64); on an x86-64 processor with AVX2 a second copy uses fours. Both add the
   same products in the same order, so they give the same numbers. */
typedef double v2d __attribute__((vector_size(16), aligned(8), may_alias));

/* out[j] = b[j] + Σ x[k] · w[rows[k]][j] over k in order, for j < padded: a layer before its ReLU.
   A block of units stays in registers (eight independent sums, enough to keep the adder busy)
   while the inputs are added in order: the same sums as adding row after row. */
static void net_layer_v2(const double *w, const double *b, int padded, const int16_t *rows, const double *x, int n,
                         double *out) {
    for (int j = 0; j < padded; j += NET_BLOCK2) {
        const v2d *bias = (const v2d *)(b + j);
        v2d a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3], a4 = bias[4], a5 = bias[5], a6 = bias[6],
            a7 = bias[7];
        for (int i = 0; i < n; i++) {
            const v2d *row = (const v2d *)(w + (size_t)rows[i] * padded + j);
            double xi = x[i];
            a0 += xi * row[0];
            a1 += xi * row[1];
            a2 += xi * row[2];
            a3 += xi * row[3];
            a4 += xi * row[4];
            a5 += xi * row[5];
            a6 += xi * row[6];
            a7 += xi * row[7];
        }
        v2d *o = (v2d *)(out + j);
        o[0] = a0, o[1] = a1, o[2] = a2, o[3] = a3, o[4] = a4, o[5] = a5, o[6] = a6, o[7] = a7;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define NET_AVX2 1
typedef double v4d __attribute__((vector_size(32), aligned(8), may_alias));

__attribute__((target("avx2"))) static void net_layer_v4(const double *w, const double *b, int padded,
                                                          const int16_t *rows, const double *x, int n, double *out) {
    for (int j = 0; j < padded; j += NET_BLOCK4) {
        const v4d *bias = (const v4d *)(b + j);
        v4d a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3], a4 = bias[4], a5 = bias[5], a6 = bias[6],
            a7 = bias[7];
        for (int i = 0; i < n; i++) {
            const v4d *row = (const v4d *)(w + (size_t)rows[i] * padded + j);
            double xi = x[i];
            a0 += xi * row[0];
            a1 += xi * row[1];
            a2 += xi * row[2];
            a3 += xi * row[3];
            a4 += xi * row[4];
            a5 += xi * row[5];
            a6 += xi * row[6];
            a7 += xi * row[7];
        }
        v4d *o = (v4d *)(out + j);
        o[0] = a0, o[1] = a1, o[2] = a2, o[3] = a3, o[4] = a4, o[5] = a5, o[6] = a6, o[7] = a7;
    }
}
#else
#define NET_AVX2 0
#endif

static void net_layer(const NetObject *net, const double *w, const double *b, const int16_t *rows, const double *x,
                      int n, double *out) {
#if NET_AVX2
    if (net->avx2) {
        net_layer_v4(w, b, net->padded, rows, x, n, out);
        return;
    }
#endif
    net_layer_v2(w, b, net->padded, rows, x, n, out);
}

/* The forward pass up to the last hidden layer (written to `out`, which holds `net->hidden`
   entries) and the value head: returns the mover's win probability. */
static double net_forward(const NetObject *net, const float *obs, Hidden *out) {
    int hidden = net->hidden;
    double acc[NET_MAX_HIDDEN], x[NET_MAX_HIDDEN];
    int16_t rows[NET_MAX_HIDDEN];
    /* The non-zero entries, gathered without branches (written always, kept when non-zero). */
    int n = 0;
    for (int i = 0; i < OBS_SIZE; i++) {
        rows[n] = (int16_t)i;
        x[n] = (double)obs[i];
        n += obs[i] != 0.0f;
    }
    net_layer(net, net->w1, net->b1, rows, x, n, acc);
    n = 0;
    for (int j = 0; j < hidden; j++) {
        rows[n] = (int16_t)j;
        x[n] = acc[j];
        n += acc[j] > 0.0;
    }
    net_layer(net, net->w2, net->b2, rows, x, n, acc);
    int n2 = 0;
    double v = net->bv;
    for (int j = 0; j < hidden; j++) {
        out->index[n2] = (uint16_t)j;
        out->value[n2] = acc[j];
        n2 += acc[j] > 0.0;
    }
    out->n = n2;
    for (int k = 0; k < n2; k++) v += out->value[k] * net->wv[out->index[k]];
    return 1.0 / (1.0 + exp(-(v > -60.0 ? v : -60.0)));
}

/* The policy logits of actions from a last hidden layer: each a sum in unit order, four sums at a
   time so that the processor overlaps their additions. */
static void net_logits(const NetObject *net, const Hidden *h, const uint8_t *actions, int n, double *out) {
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const double *r0 = net->wpt + (size_t)actions[i] * net->hidden;
        const double *r1 = net->wpt + (size_t)actions[i + 1] * net->hidden;
        const double *r2 = net->wpt + (size_t)actions[i + 2] * net->hidden;
        const double *r3 = net->wpt + (size_t)actions[i + 3] * net->hidden;
        double s0 = net->bp[actions[i]], s1 = net->bp[actions[i + 1]];
        double s2 = net->bp[actions[i + 2]], s3 = net->bp[actions[i + 3]];
        for (int k = 0; k < h->n; k++) {
            double x = h->value[k];
            int j = h->index[k];
            s0 += x * r0[j];
            s1 += x * r1[j];
            s2 += x * r2[j];
            s3 += x * r3[j];
        }
        out[i] = s0;
        out[i + 1] = s1;
        out[i + 2] = s2;
        out[i + 3] = s3;
    }
    for (; i < n; i++) {
        const double *row = net->wpt + (size_t)actions[i] * net->hidden;
        double acc = net->bp[actions[i]];
        for (int k = 0; k < h->n; k++) acc += h->value[k] * row[h->index[k]];
        out[i] = acc;
    }
}

static void Net_dealloc(NetObject *self) {
    PyMem_Free(self->block);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

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

/* Net(w1, b1, w2, b2, wp, bp, wv, bv, *, wide=True): the arrays of kahuna.ai.net.LAYERS, float32,
   copied; wide=False keeps to the portable layers even on a processor with AVX2 (for the test
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
    if (self) {
        int hidden = (int)h, padded = (hidden + NET_PAD - 1) / NET_PAD * NET_PAD;
        size_t total = (size_t)OBS_SIZE * padded + 2 * (size_t)padded + (size_t)hidden * padded +
                       (size_t)NACTIONS * hidden + NACTIONS + hidden;
        self->block = (double *)PyMem_Calloc(total, sizeof(double));
        if (!self->block) {
            Py_DECREF(self);
            self = NULL;
            PyErr_NoMemory();
        } else {
            self->hidden = hidden;
            self->padded = padded;
#if NET_AVX2
            self->avx2 = wide && __builtin_cpu_supports("avx2");
#else
            self->avx2 = 0;
            (void)wide;
#endif
            self->w1 = self->block;
            self->b1 = self->w1 + (size_t)OBS_SIZE * padded;
            self->w2 = self->b1 + padded;
            self->b2 = self->w2 + (size_t)hidden * padded;
            self->wpt = self->b2 + padded;
            self->bp = self->wpt + (size_t)NACTIONS * hidden;
            self->wv = self->bp + NACTIONS;
            const float *w1 = b[0].buf, *b1 = b[1].buf, *w2 = b[2].buf, *b2 = b[3].buf;
            const float *wp = b[4].buf, *bp = b[5].buf, *wv = b[6].buf;
            for (int i = 0; i < OBS_SIZE; i++)
                for (int j = 0; j < hidden; j++) self->w1[(size_t)i * padded + j] = w1[(size_t)i * hidden + j];
            for (int i = 0; i < hidden; i++)
                for (int j = 0; j < hidden; j++) self->w2[(size_t)i * padded + j] = w2[(size_t)i * hidden + j];
            for (int j = 0; j < hidden; j++) {
                self->b1[j] = b1[j];
                self->b2[j] = b2[j];
                self->wv[j] = wv[j];
                for (int a = 0; a < NACTIONS; a++) self->wpt[(size_t)a * hidden + j] = wp[(size_t)j * NACTIONS + a];
            }
            for (int a = 0; a < NACTIONS; a++) self->bp[a] = bp[a];
            self->bv = ((const float *)b[7].buf)[0];
        }
    }
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return (PyObject *)self;
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
        v = net_forward(self, (const float *)ob.buf, &h);
        net_logits(self, &h, codes, (int)n, logits);
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

static PyObject *Net_get_hidden(NetObject *self, void *c) { return PyLong_FromLong(self->hidden); }
static PyObject *Net_get_avx2(NetObject *self, void *c) { return PyBool_FromLong(self->avx2); }

static PyGetSetDef Net_getset[] = {
    {"hidden", (getter)Net_get_hidden, NULL, "the width of the hidden layers", NULL},
    {"avx2", (getter)Net_get_avx2, NULL, "whether the layers run on AVX2", NULL},
    {NULL},
};

static PyMethodDef Net_methods[] = {
    {"evaluate", (PyCFunction)Net_evaluate, METH_VARARGS, "evaluate(obs, actions, repeat=1) -> (value, logits)"},
    {NULL},
};

static PyTypeObject NetType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kahuna.fast._core.Net",
    .tp_basicsize = sizeof(NetObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A policy/value network in C: Net(w1, b1, w2, b2, wp, bp, wv, bv), float32 arrays.",
    .tp_new = Net_new,
    .tp_dealloc = (destructor)Net_dealloc,
    .tp_methods = Net_methods,
    .tp_getset = Net_getset,
};

/* observe(state, seat, out): the observation of `seat`'s view of a State into a float32[OBS_SIZE]
   buffer, equal to kahuna.ai.features.encode_view(view_of(state, seat)) (tests/fast checks it). */
static PyObject *observe(PyObject *mod, PyObject *args) {
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

/* ------------------------------------------------------------------ the search (netsearch.py) */

/* A tree node: the action that led here, its prior at the parent, and its statistics from the
   side of the seat that chose it; `judged` indexes the node's network judgement, -1 until then. */
typedef struct {
    int32_t first_child, next_sibling;
    int32_t visits, judged;
    double reward, prior;
    uint8_t action;
} NNode;

/* The network's judgement of a node: the mover's value, the softmax's maximum logit and sum of
   exponentials over the actions of the judging world, and the sparse last hidden layer (at
   `offset` in the tree's pools) from which the prior of an action of another world is made. */
typedef struct {
    double value, top, total;
    int32_t offset, n;
} Judgement;

typedef struct {
    NNode *nodes;
    int32_t len, cap;
    Judgement *judged;
    int32_t judged_len, judged_cap;
    uint16_t *index;
    double *value;
    size_t pool_len, pool_cap;
} NTree;

static void ntree_free(NTree *t) {
    free(t->nodes);
    free(t->judged);
    free(t->index);
    free(t->value);
}

static int32_t ntree_new_node(NTree *t, int action, double prior) {
    if (t->len == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 4096;
        NNode *grown = (NNode *)realloc(t->nodes, (size_t)cap * sizeof(NNode));
        if (!grown) return -1;
        t->nodes = grown;
        t->cap = cap;
    }
    NNode *n = &t->nodes[t->len];
    n->first_child = n->next_sibling = -1;
    n->visits = 0;
    n->judged = -1;
    n->reward = 0.0;
    n->prior = prior;
    n->action = (uint8_t)action;
    return t->len++;
}

/* Room for one more judgement of up to `hidden` units; 0 when out of memory. */
static int ntree_reserve(NTree *t, int hidden) {
    if (t->judged_len == t->judged_cap) {
        int32_t cap = t->judged_cap ? t->judged_cap * 2 : 1024;
        Judgement *grown = (Judgement *)realloc(t->judged, (size_t)cap * sizeof(Judgement));
        if (!grown) return 0;
        t->judged = grown;
        t->judged_cap = cap;
    }
    if (t->pool_len + (size_t)hidden > t->pool_cap) {
        size_t cap = t->pool_cap ? t->pool_cap * 2 : 65536;
        while (cap < t->pool_len + (size_t)hidden) cap *= 2;
        uint16_t *index = (uint16_t *)realloc(t->index, cap * sizeof(uint16_t));
        if (!index) return 0;
        t->index = index;
        double *value = (double *)realloc(t->value, cap * sizeof(double));
        if (!value) return 0;
        t->value = value;
        t->pool_cap = cap;
    }
    return 1;
}

static inline Hidden judgement_hidden(const NTree *t, const Judgement *j) {
    Hidden h = {j->n, t->index + j->offset, t->value + j->offset};
    return h;
}

/* The prior of an action at a judged node: softmax with the judging world's normalisation. */
static double prior_of(const NetObject *net, const NTree *t, const Judgement *j, int action) {
    Hidden h = judgement_hidden(t, j);
    uint8_t one = (uint8_t)action;
    double logit;
    net_logits(net, &h, &one, 1, &logit);
    return exp(logit - j->top) / j->total;
}

/* Judge node `node` in world `s` (netsearch._judge): the network's value for the mover, and a
   child with its prior for every tree action. Returns the value, or -1.0 when out of memory. */
static double judge(const NetObject *net, NTree *t, int32_t node, const KState *s) {
    if (!ntree_reserve(t, net->hidden)) return -1.0;
    float obs[OBS_SIZE];
    encode_obs(s, s->to_move, obs);
    Judgement *j = &t->judged[t->judged_len];
    j->offset = (int32_t)t->pool_len;
    Hidden h = {0, t->index + t->pool_len, t->value + t->pool_len};
    j->value = net_forward(net, obs, &h);
    j->n = h.n;
    t->pool_len += (size_t)h.n;
    uint8_t legal[MAX_LEGAL];
    double logits[MAX_LEGAL];
    int n = tree_actions(s, legal);
    double top = 0.0, total = 0.0;
    net_logits(net, &h, legal, n, logits);
    for (int i = 0; i < n; i++)
        if (i == 0 || logits[i] > top) top = logits[i];
    for (int i = 0; i < n; i++) {
        logits[i] = exp(logits[i] - top);
        total += logits[i];
    }
    j->top = top;
    j->total = total;
    t->nodes[node].judged = t->judged_len++;
    for (int i = n - 1; i >= 0; i--) { /* pushed in front: the list ends up in tree-action order */
        int32_t child = ntree_new_node(t, legal[i], logits[i] / total);
        if (child < 0) return -1.0;
        t->nodes[child].next_sibling = t->nodes[node].first_child;
        t->nodes[node].first_child = child;
    }
    return t->judged[t->nodes[node].judged].value;
}

typedef struct {
    double c, mix, share;
    int playout_turns, stop;
    HWeights weights;
} NetConfig;

/* Whether the most visited root action holds at least `share` of the root's visits
   (netsearch._leading). */
static int leading(const NTree *t, double share) {
    long total = 0;
    int lead = 0;
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
        total += t->nodes[ch].visits;
        if (t->nodes[ch].visits > lead) lead = t->nodes[ch].visits;
    }
    return total > 0 && lead >= share * (double)total;
}

/* Whether the root's choice (most visits, ties to the lowest action) is fixed whatever the
   `remaining` iterations do (netsearch._settled): each gives one root child one visit at most, so
   the leader keeps its place when every other action, given all of them, stays behind it or ties
   it from a higher action; an action no world has offered yet counts as unvisited with any index,
   so the leader also needs more visits than remain. */
static int settled(const NTree *t, int remaining) {
    int lead = 0, leader = -1;
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
        const NNode *c = &t->nodes[ch];
        if (c->visits > lead || (c->visits == lead && c->visits && c->action < leader)) {
            lead = c->visits;
            leader = c->action;
        }
    }
    if (lead <= remaining) return 0;
    for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
        const NNode *c = &t->nodes[ch];
        int reach = c->visits + remaining;
        if (c->action != leader && (reach > lead || (reach == lead && c->action < leader))) return 0;
    }
    return 1;
}

/* One iteration (netsearch._iterate); returns 0, or -1 when out of memory. */
static int net_iterate(const NetObject *net, NTree *t, const View *v, MT *rng, const NetConfig *cfg,
                       int32_t *slot) {
    KState s;
    determinize(v, rng, &s);
    int32_t path[NET_MAX_DEPTH];
    int8_t movers[NET_MAX_DEPTH];
    int depth = 0;
    int32_t node = 0;
    double result;
    uint8_t legal[MAX_LEGAL];
    for (;;) {
        if (s.phase == OVER) {
            result = s.winner < 0 ? 0.5 : (s.winner == 0 ? 1.0 : 0.0);
            break;
        }
        int mover = s.to_move;
        if (t->nodes[node].judged < 0) {
            double value = judge(net, t, node, &s);
            if (value < 0.0) return -1;
            result = mover == 0 ? value : 1.0 - value;
            if (cfg->mix > 0.0) {
                double played = playout(&s, rng, cfg->playout_turns, &cfg->weights);
                result = (1.0 - cfg->mix) * result + cfg->mix * played;
            }
            break;
        }
        /* The children by action (slot[] is all -1 between calls), adding those this world
           offers for the first time, with their priors from the node's judgement. */
        for (int32_t ch = t->nodes[node].first_child; ch >= 0; ch = t->nodes[ch].next_sibling)
            slot[t->nodes[ch].action] = ch;
        int n = tree_actions(&s, legal);
        const Judgement *j = &t->judged[t->nodes[node].judged];
        double scale = cfg->c * sqrt((double)(t->nodes[node].visits + 1));
        double first_play = j->value, best_value = -1.0;
        int32_t best = -1;
        int failed = 0;
        for (int i = 0; i < n; i++) {
            int32_t ch = slot[legal[i]];
            if (ch < 0) {
                double prior = prior_of(net, t, j, legal[i]);
                ch = ntree_new_node(t, legal[i], prior);
                if (ch < 0) {
                    failed = 1;
                    break;
                }
                t->nodes[ch].next_sibling = t->nodes[node].first_child;
                t->nodes[node].first_child = ch;
                slot[legal[i]] = ch;
            }
            const NNode *c = &t->nodes[ch];
            double q = c->visits ? c->reward / c->visits : first_play;
            double u = q + scale * c->prior / (1 + c->visits);
            if (u > best_value) {
                best_value = u;
                best = ch;
            }
        }
        for (int32_t ch = t->nodes[node].first_child; ch >= 0; ch = t->nodes[ch].next_sibling)
            slot[t->nodes[ch].action] = -1;
        if (failed) return -1;
        t->nodes[node].visits++;
        apply_rng(&s, t->nodes[best].action, rng);
        path[depth] = best;
        movers[depth] = (int8_t)mover;
        node = best;
        if (++depth >= NET_MAX_DEPTH) { /* a game has far fewer actions; a guard, not a rule */
            result = exact_win_probability(&s, &cfg->weights);
            break;
        }
    }
    t->nodes[node].visits++;
    for (int i = 0; i < depth; i++) t->nodes[path[i]].reward += movers[i] == 0 ? result : 1.0 - result;
    return 0;
}

/* net_search(net, view_fields, seat, hand_slots, down_slots, rng_state, iterations, c, mix, playout,
   weights, stop=False, share=0.0) -> visits {action: n}: `iterations` iterations of netsearch.search
   from the view (read as by search above) with a Net; mix in [0, 1] weighs the heuristic playout of
   `playout` turns (with the nine heuristic weights, HWeights order) against the network's value at
   the leaves; with stop, fewer once the most visited root action is settled; with share in (0, 1],
   fewer once it holds that share of the root's visits (from a quarter of the budget on). */
static PyObject *net_search(PyObject *mod, PyObject *args) {
    PyObject *fields, *rng_state;
    NetObject *net;
    int seat, hs[2], ds[2], iterations;
    NetConfig cfg = {.stop = 0, .share = 0.0};
    HWeights *w = &cfg.weights;
    if (!need_board()) return NULL;
    if (!PyArg_ParseTuple(args, "O!Oi(ii)(ii)Oiddi(ddddddddd)|pd:net_search", &NetType, &net, &fields, &seat, &hs[0],
                          &hs[1], &ds[0], &ds[1], &rng_state, &iterations, &cfg.c, &cfg.mix, &cfg.playout_turns,
                          &w->stone, &w->degree_bonus, &w->fragile_loss, &w->claim_threat, &w->progress, &w->bridge,
                          &w->strike, &w->card, &w->scale, &cfg.stop, &cfg.share))
        return NULL;
    const double each[] = {w->stone, w->degree_bonus, w->fragile_loss, w->claim_threat, w->progress,
                           w->bridge,  w->strike,       w->card,         w->scale};
    int finite = w->scale > 0.0;
    for (size_t k = 0; k < sizeof each / sizeof each[0]; k++) finite = finite && isfinite(each[k]);
    if (iterations < 1 || iterations > NET_MAX_ITERATIONS || !(cfg.c >= 0.0 && cfg.c <= 1e6) ||
        !(cfg.mix >= 0.0 && cfg.mix <= 1.0) || !(cfg.share >= 0.0 && cfg.share <= 1.0) || cfg.playout_turns < 0 ||
        cfg.playout_turns > 1000 || !finite) {
        PyErr_SetString(PyExc_ValueError, "bad net search settings");
        return NULL;
    }
    View v;
    if (!read_view(fields, seat, hs, ds, &v)) return NULL;
    MT rng;
    if (!read_mt_state(rng_state, &rng)) return NULL;
    NTree t = {0};
    int32_t slot[NACTIONS];
    for (int a = 0; a < NACTIONS; a++) slot[a] = -1;
    int failed = ntree_new_node(&t, 0, 0.0) < 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int done = 1; done <= iterations && !failed; done++) {
        failed = net_iterate(net, &t, &v, &rng, &cfg, slot) < 0;
        if (!failed && cfg.stop && settled(&t, iterations - done)) break;
        if (!failed && cfg.share > 0.0 && 4L * done >= iterations && leading(&t, cfg.share)) break;
    }
    Py_END_ALLOW_THREADS;
    if (failed) {
        ntree_free(&t);
        return PyErr_NoMemory();
    }
    /* The root's visited children; after one iteration (the root judged, nothing visited) the
       legal action of highest prior, ties to the lowest index, as netsearch.search plays it. */
    int32_t visited[NACTIONS], counts[NACTIONS];
    int nv = 0;
    for (int32_t ch = t.nodes[0].first_child; ch >= 0; ch = t.nodes[ch].next_sibling)
        if (t.nodes[ch].visits) {
            visited[nv] = t.nodes[ch].action;
            counts[nv++] = t.nodes[ch].visits;
        }
    if (!nv) {
        KState root = v.base;
        derive(&root);
        uint8_t legal[MAX_LEGAL];
        int n = legal_actions(&root, legal);
        const Judgement *j = &t.judged[t.nodes[0].judged];
        double best = -1.0;
        for (int i = 0; i < n; i++) {
            double prior = prior_of(net, &t, j, legal[i]);
            if (prior > best || (prior == best && legal[i] < visited[0])) {
                best = prior;
                visited[0] = legal[i];
            }
        }
        counts[0] = 1;
        nv = 1;
    }
    ntree_free(&t);
    PyObject *out = PyDict_New();
    for (int i = 0; out && i < nv; i++) {
        PyObject *k = PyLong_FromLong(visited[i]), *val = PyLong_FromLong(counts[i]);
        if (!k || !val || PyDict_SetItem(out, k, val) < 0) Py_CLEAR(out);
        Py_XDECREF(k);
        Py_XDECREF(val);
    }
    return out;
}
