/* The counting kernel of oracle/counting.py: clipped n-gram matches per order (BLEU's p_n numerators).

   clipped_matches(hypothesis, references, max_order) -> tuple of max_order ints, where entry n-1 is the sum over
   the hypothesis's distinct n-grams g of min(Count(g), max over references of Count_ref(g)) (Papineni et al. 2002,
   section 2.1): what `bleu.clipped_matches(bleu.count(h, N), [bleu.count(r, N) ...], N)` gives, without a
   Python object per n-gram. Tokens are any hashable objects compared with ==, as a tuple's items are.

   One order at a time: each side's n-gram hashes are made from the order below's (g_n[i] = mix(g_{n-1}[i],
   h[i+n-1])), the hypothesis's n-grams are counted in an open-addressing table of positions (equal hashes are
   compared token by token), and each reference's n-grams are looked up in it, so a reference costs one lookup
   per n-gram and no table of its own. Built only where a C compiler is present (setup.py: optional); the pure
   Python counting is used wherever it is not. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    Py_ssize_t start;  /* the position of the n-gram's first occurrence in the hypothesis */
    Py_uhash_t hash;
    Py_ssize_t count;  /* Count(g) in the hypothesis */
    Py_ssize_t seen;   /* Count_ref(g) in the reference being read */
    Py_ssize_t most;   /* Max_Ref_Count(g) over the references read */
} Entry;

typedef struct {
    PyObject **items;
    Py_ssize_t length;
    Py_uhash_t *hashes;  /* the token hashes, then each order's n-gram hashes in place */
    PyObject *fast;      /* the sequence as a list or tuple (a new reference) */
} Side;

static Py_uhash_t mix(Py_uhash_t gram, Py_uhash_t token) {
    return (gram ^ token) * (Py_uhash_t)0x100000001b3ULL + (gram >> 29);
}

static int side_init(Side *side, PyObject *sequence) {
    side->fast = PySequence_Fast(sequence, "the tokens must be a sequence");
    side->hashes = NULL;
    if (side->fast == NULL) return -1;
    side->items = PySequence_Fast_ITEMS(side->fast);
    side->length = PySequence_Fast_GET_SIZE(side->fast);
    side->hashes = PyMem_Malloc(sizeof(Py_uhash_t) * (size_t)(side->length + 1));
    if (side->hashes == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < side->length; i++) {
        Py_hash_t h = PyObject_Hash(side->items[i]);
        if (h == -1 && PyErr_Occurred()) return -1;
        side->hashes[i] = (Py_uhash_t)h;
    }
    return 0;
}

static void side_free(Side *side) {
    PyMem_Free(side->hashes);
    Py_XDECREF(side->fast);
}

/* Whether the n tokens at a and b are equal: 1, 0, or -1 with an exception set. */
static int grams_equal(PyObject **a, PyObject **b, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++) {
        if (a[k] == b[k]) continue;
        int equal = PyObject_RichCompareBool(a[k], b[k], Py_EQ);
        if (equal <= 0) return equal;
    }
    return 1;
}

/* The entry of the n-gram at `gram` (hash `hash`) in the table, or -1 when it has none; -2 on an error.
   `*slot_out` is the slot where it is or would go. */
static Py_ssize_t lookup(Py_ssize_t *slots, size_t mask, Entry *entries, PyObject **hypothesis, PyObject **gram,
                         Py_uhash_t hash, Py_ssize_t n, size_t *slot_out) {
    size_t slot = (size_t)hash & mask;
    for (;;) {
        Py_ssize_t index = slots[slot];
        if (index < 0) { *slot_out = slot; return -1; }
        if (entries[index].hash == hash) {
            int equal = grams_equal(hypothesis + entries[index].start, gram, n);
            if (equal < 0) return -2;
            if (equal) { *slot_out = slot; return index; }
        }
        slot = (slot + 1) & mask;
    }
}

static PyObject *clipped_matches(PyObject *module, PyObject *args) {
    PyObject *hypothesis_in, *references_in;
    Py_ssize_t max_order;
    if (!PyArg_ParseTuple(args, "OOn", &hypothesis_in, &references_in, &max_order)) return NULL;
    if (max_order < 0) { PyErr_SetString(PyExc_ValueError, "max_order must be at least 0"); return NULL; }
    PyObject *references_fast = PySequence_Fast(references_in, "the references must be a sequence");
    if (references_fast == NULL) return NULL;
    Py_ssize_t reference_count = PySequence_Fast_GET_SIZE(references_fast);
    PyObject *result = NULL;
    Side hypothesis = {0};
    Side *references = PyMem_Calloc((size_t)reference_count + 1, sizeof(Side));
    Py_ssize_t *slots = NULL;
    Entry *entries = NULL;
    Py_ssize_t *matches = PyMem_Calloc((size_t)max_order + 1, sizeof(Py_ssize_t));
    if (references == NULL || matches == NULL) { PyErr_NoMemory(); goto done; }
    if (side_init(&hypothesis, hypothesis_in) < 0) goto done;
    for (Py_ssize_t r = 0; r < reference_count; r++) {
        if (side_init(&references[r], PySequence_Fast_GET_ITEM(references_fast, r)) < 0) goto done;
    }
    size_t size = 8;
    while (size < (size_t)hypothesis.length * 2) size <<= 1;
    size_t mask = size - 1;
    slots = PyMem_Malloc(sizeof(Py_ssize_t) * size);
    entries = PyMem_Malloc(sizeof(Entry) * (size_t)(hypothesis.length + 1));
    if (slots == NULL || entries == NULL) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t n = 1; n <= max_order && n <= hypothesis.length; n++) {
        if (n > 1) {  /* the order's n-gram hashes from the order below's, on every side */
            for (Py_ssize_t i = 0; i + n <= hypothesis.length; i++)
                hypothesis.hashes[i] = mix(hypothesis.hashes[i], (Py_uhash_t)PyObject_Hash(hypothesis.items[i + n - 1]));
            for (Py_ssize_t r = 0; r < reference_count; r++) {
                Side *reference = &references[r];
                for (Py_ssize_t j = 0; j + n <= reference->length; j++)
                    reference->hashes[j] = mix(reference->hashes[j],
                                               (Py_uhash_t)PyObject_Hash(reference->items[j + n - 1]));
            }
        }
        for (size_t s = 0; s < size; s++) slots[s] = -1;
        Py_ssize_t used = 0;
        for (Py_ssize_t i = 0; i + n <= hypothesis.length; i++) {
            size_t slot;
            Py_ssize_t index = lookup(slots, mask, entries, hypothesis.items, hypothesis.items + i,
                                      hypothesis.hashes[i], n, &slot);
            if (index == -2) goto done;
            if (index >= 0) { entries[index].count++; continue; }
            entries[used] = (Entry){i, hypothesis.hashes[i], 1, 0, 0};
            slots[slot] = used++;
        }
        for (Py_ssize_t r = 0; r < reference_count; r++) {
            Side *reference = &references[r];
            for (Py_ssize_t e = 0; e < used; e++) entries[e].seen = 0;
            for (Py_ssize_t j = 0; j + n <= reference->length; j++) {
                size_t slot;
                Py_ssize_t index = lookup(slots, mask, entries, hypothesis.items, reference->items + j,
                                          reference->hashes[j], n, &slot);
                if (index == -2) goto done;
                if (index >= 0) entries[index].seen++;
            }
            for (Py_ssize_t e = 0; e < used; e++)
                if (entries[e].seen > entries[e].most) entries[e].most = entries[e].seen;
        }
        Py_ssize_t matched = 0;
        for (Py_ssize_t e = 0; e < used; e++)
            matched += entries[e].count < entries[e].most ? entries[e].count : entries[e].most;
        matches[n - 1] = matched;
    }
    result = PyTuple_New(max_order);
    if (result == NULL) goto done;
    for (Py_ssize_t n = 0; n < max_order; n++) {
        PyObject *value = PyLong_FromSsize_t(matches[n]);
        if (value == NULL) { Py_CLEAR(result); goto done; }
        PyTuple_SET_ITEM(result, n, value);
    }
done:
    PyMem_Free(matches);
    PyMem_Free(entries);
    PyMem_Free(slots);
    side_free(&hypothesis);
    if (references != NULL) {
        for (Py_ssize_t r = 0; r < reference_count; r++) side_free(&references[r]);
        PyMem_Free(references);
    }
    Py_DECREF(references_fast);
    return result;
}

static PyMethodDef methods[] = {
    {"clipped_matches", clipped_matches, METH_VARARGS,
     "clipped_matches(hypothesis, references, max_order): the clipped n-gram matches per order, a tuple."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_counting", NULL, -1, methods};

PyMODINIT_FUNC PyInit__counting(void) { return PyModule_Create(&module); }
