/* The token estimate's pieces of a text, in one pass: ``tui.core.estimate._pieces`` compiled.

``estimate._pieces`` cuts a text as the regular expression

    [A-Z]?[a-z]+ | [A-Z]+(?![a-z]) | \d+ | [^\W\d_]+ | [^\w\s]+ | _+ | \s+

cuts it (Python's ``re`` on a ``str``: ``\d`` is a decimal digit, ``\s`` whitespace, ``\w`` a letter or
number or ``_``, each as ``str.isdecimal``, ``str.isspace``, ``str.isalnum`` say) and charges each piece
by its shape, adding the costs in the order of the pieces as Python floats. This module does the same
in C, one step per character, with the same double-precision additions in the same order, so its
number is ``_pieces``' to the bit (a test holds it to that on generated and real texts). It is optional:
``estimate`` uses it when it was built (``pip install`` builds it where a C compiler is found) and
``_pieces`` and its bit-set fast paths when not.

Costs (``_pieces``): whitespace: a single space nothing, a run with newlines one per newline, any other
run ceil(n / 8); digits (a piece starting with a digit) ceil(n / 3); an ASCII letter piece 1, plus
ceil((n - 7) / 4) past 7 letters; a piece with other letters or non-ASCII characters its characters'
costs (ASCII 0.25, below U+2E80 0.6, the rest 1.2), at least 1; ``_`` runs ceil(n / 4); other
punctuation ceil(n / 2). n counts code points.
*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* A character's class, as the expression's alternatives see it. */
enum {
    LOWER,      /* a-z */
    UPPER,      /* A-Z */
    DIGIT,      /* a decimal digit (\d): ASCII or not */
    LETTER,     /* another letter or number (\w, not \d, not _): non-ASCII only */
    UNDER,      /* _ */
    SPACE,      /* ' ' */
    NEWLINE,    /* '\n' */
    BLANK,      /* other whitespace (\s) */
    PUNCT,      /* ASCII, not \w, not \s */
    SYMBOL,     /* non-ASCII, not \w, not \s */
};

static unsigned char ascii_class[128];

static void
fill_ascii_class(void)
{
    for (int c = 0; c < 128; c++) {
        unsigned char k = PUNCT;
        if (c >= 'a' && c <= 'z') k = LOWER;
        else if (c >= 'A' && c <= 'Z') k = UPPER;
        else if (c >= '0' && c <= '9') k = DIGIT;
        else if (c == '_') k = UNDER;
        else if (c == ' ') k = SPACE;
        else if (c == '\n') k = NEWLINE;
        else if (Py_UNICODE_ISSPACE((Py_UCS4)c)) k = BLANK;  /* \t \r \x0b \x0c \x1c-\x1f */
        ascii_class[c] = k;
    }
}

static inline int
class_of(Py_UCS4 ch)
{
    if (ch < 128) return ascii_class[ch];
    if (Py_UNICODE_ISSPACE(ch)) return BLANK;
    if (Py_UNICODE_ISDECIMAL(ch)) return DIGIT;
    if (Py_UNICODE_ISALNUM(ch)) return LETTER;
    return SYMBOL;
}

static inline double
char_cost(Py_UCS4 ch)
{
    return ch < 0x80 ? 0.25 : ch < 0x2E80 ? 0.6 : 1.2;
}

static inline Py_ssize_t
ceil_div(Py_ssize_t n, Py_ssize_t size)
{
    return (n + size - 1) / size;
}

static inline Py_ssize_t
letter_cost(Py_ssize_t n)
{
    return n <= 7 ? 1 : 1 + ceil_div(n - 7, 4);
}

/* Characters as code points, one reader per string kind; classes by ``class_of``, or, for ASCII text, by the table
alone. */
typedef Py_UCS4 (*reader)(const void *data, Py_ssize_t k);
typedef int (*classifier)(Py_UCS4 ch);

static inline Py_UCS4 read1(const void *data, Py_ssize_t k) { return ((const Py_UCS1 *)data)[k]; }
static inline Py_UCS4 read2(const void *data, Py_ssize_t k) { return ((const Py_UCS2 *)data)[k]; }
static inline Py_UCS4 read4(const void *data, Py_ssize_t k) { return ((const Py_UCS4 *)data)[k]; }
static inline int ascii_class_of(Py_UCS4 ch) { return ascii_class[ch]; }

#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ALWAYS_INLINE inline
#endif

/* ``estimate._non_latin``: the characters i..j-1 costed one by one, at least 1. */
static ALWAYS_INLINE double
non_latin(const void *data, Py_ssize_t i, Py_ssize_t j, reader read)
{
    double cost = 0.0;
    for (Py_ssize_t k = i; k < j; k++) cost += char_cost(read(data, k));
    return cost > 1.0 ? cost : 1.0;
}

/* The pieces of the ``n`` characters at ``data``. Always inlined, so each caller's ``read`` and ``classify`` are
compiled into a loop of its own (the ASCII one is a table look-up a character). */
static ALWAYS_INLINE double
count(const void *data, Py_ssize_t n, reader read, classifier classify)
{
    double total = 0.0;
    Py_ssize_t i = 0;
#define AT(k) read(data, (k))
#define CLASS(k) classify(AT(k))
    while (i < n) {
        int c = CLASS(i);
        Py_ssize_t j = i + 1;
        switch (c) {
        case LOWER:  /* [a-z]+ */
            while (j < n && CLASS(j) == LOWER) j++;
            total += (double)letter_cost(j - i);
            break;
        case UPPER:
            if (j < n && CLASS(j) == LOWER) {  /* [A-Z][a-z]+ */
                while (j < n && CLASS(j) == LOWER) j++;
            } else {  /* [A-Z]+(?![a-z]): the last upper before a lower starts the next piece */
                while (j < n && CLASS(j) == UPPER) j++;
                if (j < n && CLASS(j) == LOWER) j--;
            }
            total += (double)letter_cost(j - i);
            break;
        case DIGIT:  /* \d+: its first character is a digit */
            while (j < n && CLASS(j) == DIGIT) j++;
            total += (double)ceil_div(j - i, 3);
            break;
        case LETTER: {  /* [^\W\d_]+, starting at a non-ASCII character: ASCII letters join it */
            while (j < n) {
                int d = CLASS(j);
                if (d != LETTER && d != LOWER && d != UPPER) break;
                j++;
            }
            if (Py_UNICODE_ISDIGIT(AT(i))) {  /* a digit that is not decimal (a superscript two) */
                total += (double)ceil_div(j - i, 3);
            } else {
                total += non_latin(data, i, j, read);
            }
            break;
        }
        case UNDER:  /* _+ */
            while (j < n && CLASS(j) == UNDER) j++;
            total += (double)ceil_div(j - i, 4);
            break;
        case SPACE:
        case NEWLINE:
        case BLANK: {  /* \s+ */
            Py_ssize_t lines = c == NEWLINE;
            while (j < n) {
                int d = CLASS(j);
                if (d == NEWLINE) lines++;
                else if (d != SPACE && d != BLANK) break;
                j++;
            }
            if (lines) total += (double)lines;
            else if (!(c == SPACE && j - i == 1)) total += (double)ceil_div(j - i, 8);
            break;
        }
        default: {  /* PUNCT, SYMBOL: [^\w\s]+ */
            int ascii = c == PUNCT;
            while (j < n) {
                int d = CLASS(j);
                if (d == SYMBOL) ascii = 0;
                else if (d != PUNCT) break;
                j++;
            }
            if (ascii) {
                total += (double)ceil_div(j - i, 2);
            } else {
                total += non_latin(data, i, j, read);
            }
            break;
        }
        }
        i = j;
    }
#undef CLASS
#undef AT
    return total;
}

static double count_ascii(const void *data, Py_ssize_t n) { return count(data, n, read1, ascii_class_of); }
static double count_ucs1(const void *data, Py_ssize_t n) { return count(data, n, read1, class_of); }
static double count_ucs2(const void *data, Py_ssize_t n) { return count(data, n, read2, class_of); }
static double count_ucs4(const void *data, Py_ssize_t n) { return count(data, n, read4, class_of); }

PyDoc_STRVAR(pieces_doc,
"pieces(text: str) -> float\n\n"
"``estimate._pieces(text)``: the text's pieces, each charged by its shape, summed in order.");

static PyObject *
pieces(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "pieces() takes a str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    double total;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        total = PyUnicode_IS_ASCII(text) ? count_ascii(data, n) : count_ucs1(data, n);
        break;
    case PyUnicode_2BYTE_KIND:
        total = count_ucs2(data, n);
        break;
    default:
        total = count_ucs4(data, n);
        break;
    }
    return PyFloat_FromDouble(total);
}

static PyMethodDef methods[] = {
    {"pieces", pieces, METH_O, pieces_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "tui.core.piece_count",
    "The token estimate's pieces of a text in one pass: ``estimate._pieces`` compiled (optional).",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit_piece_count(void)
{
    fill_ascii_class();
    return PyModule_Create(&module);
}
