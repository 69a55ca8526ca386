/* The sieve's view of JSON text in one pass: ``tui.core.sieve``'s byte passes compiled.

``Sieve._may_hold`` scans a message's JSON text (or a string's UTF-8) for every value still sought with one
Aho-Corasick automaton. Before the scan the text is made into what the patterns are written in: a text with a
``\u`` or ``\/`` escape (which may hide any character) is walked without a scan; the letter of each ``\n \r
\t \b \f`` escape is blanked (it would glue itself to the next word); every byte that is not an ASCII letter,
digit or ``_`` becomes the separator byte 0; and a separator is put at each end. In Python that is a regular
expression search, a regular expression substitution, a ``bytes.translate`` and two concatenations, five passes
and three copies; ``prepare`` does it in one pass and one copy, with the same result to the byte (a test holds
it to the Python passes). Optional, like ``piece_count``: ``sieve`` uses the Python passes where it was not
built.
*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>

static unsigned char word[256];

PyDoc_STRVAR(prepare_doc,
"prepare(data: bytes) -> bytes | None\n\n"
"None when ``data`` holds a backslash before ``u`` or ``/``; else ``b\"\\0\" + data.translate(TABLE) + b\"\\0\"``\n"
"with the letter of each ``\\n \\r \\t \\b \\f`` (left to right, as ``re.sub`` finds them) a separator too.");

static PyObject *
prepare(PyObject *module, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const unsigned char *s = view.buf;
    Py_ssize_t n = view.len;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n + 2);
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
    o[0] = 0;
    Py_ssize_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c != '\\') {
            o[i + 1] = word[c];
            i++;
            continue;
        }
        o[i + 1] = 0;
        if (i + 1 < n) {
            unsigned char next = s[i + 1];
            if (next == 'u' || next == '/') {  /* a hidden character: no scan */
                Py_DECREF(out);
                PyBuffer_Release(&view);
                Py_RETURN_NONE;
            }
            if (next == 'n' || next == 'r' || next == 't' || next == 'b' || next == 'f') {
                o[i + 2] = 0;
                i += 2;
                continue;
            }
        }
        i++;
    }
    o[n + 1] = 0;
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"prepare", prepare, METH_O, prepare_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "tui.core.sieve_text",
    "The sieve's view of JSON text in one pass (optional: ``sieve`` has the same in Python).",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit_sieve_text(void)
{
    for (int c = 0; c < 256; c++) {
        word[c] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
                  ? (unsigned char)c : 0;
    }
    return PyModule_Create(&module);
}
