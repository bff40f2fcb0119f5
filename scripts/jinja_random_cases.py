"""Seeded random cases for scripts/make-jinja-references.py: expressions over a fixed context,
whitespace-control layouts, and scoping programs (set / for / if / macro / with / call /
namespace). Differential testing against jinja2 found most of the interpreter's corner cases;
a deterministic sample is kept in the fixture as a regression net."""
import random

EXPRESSION_CONTEXT = {
    "s": "Hello, Wörld! ", "e": "", "i": 7, "z": 0, "f": 2.5, "neg": -3, "b": True, "n": None,
    "l": [3, 1, 2], "ls": ["b", "A", "c"], "d": {"k": "v", "a": 1},
    "m": [{"role": "user", "content": " hi "}, {"role": "assistant", "content": "yo", "x": [1]}],
    "u8": "é😀\u00a0ß",
}
ATOMS = ["1", "0", "-2", "3.5", "0.1", "1e3", "'a'", "'xyz'", "''", "' pad '", "'a,b,c'", "\"q'\"", "'%s'", "'{}'",
         "true", "false", "none", "[1, 2]", "[]", "['x', 'y']", "{'a': 1}", "{}", "(1, 2)", "(1,)", "s", "e", "i", "z",
         "f", "neg", "b", "n", "l", "ls", "d", "m", "u8", "missing", "range(4)", "m[0]", "m[1].x", "d.k", "d['a']",
         "l[0]", "ls[-1]"]
FILTERS = ["upper", "lower", "title", "capitalize", "trim", "length", "first", "last", "list", "sort", "reverse|list",
           "unique|list", "join", "join(', ')", "default('D')", "d('D', true)", "tojson", "tojson(indent=2)", "string",
           "int", "float", "abs", "round", "round(1)", "replace('a', 'b')", "indent(2)", "indent(2, true)", "center(9)",
           "wordcount", "count", "items|list", "dictsort", "min", "max", "sum", "select|list", "reject|list",
           "map('upper')|list", "map(attribute='role')|list", "selectattr('role')|list", "batch(2)|list",
           "truncate(5)", "format(1)", "attr('k')", "list|length", "sort(reverse=true)", "first|string"]
TESTS = ["defined", "undefined", "none", "string", "number", "integer", "float", "mapping", "sequence", "iterable",
         "boolean", "true", "false", "odd", "even", "divisibleby 2", "eq 1", "in [1, 'a']", "lower", "upper",
         "callable", "sameas none", "gt 1"]
METHODS = ["upper()", "lower()", "strip()", "strip('H ')", "lstrip()", "rstrip()", "split()", "split(',')",
           "split(',', 1)", "rsplit(' ', 1)", "startswith('H')", "endswith(' ')", "replace('l', 'L')", "title()",
           "capitalize()", "find('o')", "count('l')", "splitlines()", "isalpha()", "isdigit()", "format(1, 2)",
           "zfill(5)", "center(10, '*')", "get('k')", "get('zz', 0)", "items()|list", "keys()|list", "values()|list",
           "index(1)", "count(1)", "join(['a', 'b'])", "partition(',')", "removeprefix('He')", "swapcase()"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">", "<=", ">=", "in", "not in", "and", "or"]
SUBSCRIPTS = ["0", "-1", "1:", ":2", "::-1", "::2", "'k'", "5"]
# Outputs the interpreter deliberately does not reproduce: markupsafe's Markup, complex numbers,
# and the reprs of generators, functions and other Python objects.
UNMODELLED = ("Markup", "complex", "generator", "object at 0x", "<function", "<built-in", "LoopContext", "<Namespace")


def expression(r, depth=0):
    x = r.random()
    if depth > 3 or x < 0.25:
        return r.choice(ATOMS)
    if x < 0.45:
        return f"({expression(r, depth + 1)} {r.choice(BINOPS)} {expression(r, depth + 1)})"
    if x < 0.6:
        return f"({expression(r, depth + 1)})|{r.choice(FILTERS)}"
    if x < 0.68:
        return f"({expression(r, depth + 1)} is {'not ' if r.random() < 0.2 else ''}{r.choice(TESTS)})"
    if x < 0.78:
        return f"({expression(r, depth + 1)}).{r.choice(METHODS)}"
    if x < 0.84:
        return f"({expression(r, depth + 1)})[{r.choice(SUBSCRIPTS)}]"
    if x < 0.9:
        return f"({expression(r, depth + 1)} if {expression(r, depth + 1)} else {expression(r, depth + 1)})"
    if x < 0.95:
        return f"(not {expression(r, depth + 1)})"
    return f"[{expression(r, depth + 1)}, {expression(r, depth + 1)}]"


TEXT = [" ", "  ", "\t", "\n", "\n\n", "a", "b c", " \n ", "\r\n", "x\n  ", "\u00a0", "  \n\t"]


def layout(r, depth=0):
    def sign(plus=True):
        return r.choice(["", "", "-", "+"] if plus else ["", "", "-"])

    def tag(body):
        return "{%" + sign() + " " + body + " " + sign() + "%}"

    out = []
    for _ in range(r.randint(1, 6)):
        x = r.random()
        if x < 0.35:
            out.append(r.choice(TEXT))
        elif x < 0.5:
            out.append("{{" + sign() + " 'v' " + sign(False) + "}}")
        elif x < 0.6:
            out.append("{#" + sign() + " c " + sign() + "#}")
        elif x < 0.7 and depth < 3:
            otherwise = tag("else") + layout(r, depth + 1) if r.random() < 0.3 else ""
            out.append(tag("if true") + layout(r, depth + 1) + otherwise + tag("endif"))
        elif x < 0.8 and depth < 3:
            out.append(tag("for i in [1, 2]") + layout(r, depth + 1) + tag("endfor"))
        elif x < 0.88:
            out.append(tag("set x = 1"))
        elif x < 0.93:
            out.append(tag("raw") + r.choice(TEXT) + "{{ raw }}" + r.choice(TEXT) + tag("endraw"))
        elif x < 0.97 and depth < 3:
            out.append(tag("macro m()") + layout(r, depth + 1) + tag("endmacro") + r.choice(TEXT) + "{{ m() }}")
        else:
            out.append(tag("set y") + layout(r, depth + 1) + tag("endset") + "{{ y }}")
    return "".join(out)


SCOPE_VALUES = ["1", "a", "b", "a + 1", "(b or 0) + 1", "ns.x", "ns.x + 1", "loop.index", "[a]", "'s' ~ a",
                "c|default(0)", "m()", "m(a)", "varargs|length", "caller is defined"]


def program(r, depth=0, in_loop=False):
    out = []
    for _ in range(r.randint(1, 5)):
        x = r.random()
        value = r.choice(SCOPE_VALUES)
        if x < 0.25:
            out.append("{% set " + r.choice("abc") + " = " + value + " %}")
        elif x < 0.35:
            out.append("{% set ns.x = " + value + " %}")
        elif x < 0.55:
            out.append("[{{ " + r.choice(["a", "b", "c", "ns.x", "loop.index", "loop.length"]) + " }}]")
        elif x < 0.65 and depth < 3:
            out.append("{% if " + value + " %}" + program(r, depth + 1, in_loop) + "{% else %}"
                       + program(r, depth + 1, in_loop) + "{% endif %}")
        elif x < 0.77 and depth < 3:
            test = " if " + r.choice(SCOPE_VALUES) if r.random() < 0.2 else ""
            otherwise = "{% else %}E" if r.random() < 0.3 else ""
            out.append("{% for " + r.choice(["a", "b", "c", "i"]) + " in " + r.choice(["[1, 2]", "range(3)", "[a, b]", "[]"])
                       + test + " %}" + program(r, depth + 1, True) + otherwise + "{% endfor %}")
        elif x < 0.82 and in_loop:
            out.append(r.choice(["{% break %}", "{% continue %}"]))
        elif x < 0.88 and depth < 2:
            out.append("{% macro m(a=" + value + ") %}" + program(r, depth + 1) + "{% endmacro %}")
        elif x < 0.92 and depth < 3:
            out.append("{% with a = " + value + " %}" + program(r, depth + 1, in_loop) + "{% endwith %}")
        elif x < 0.95 and depth < 2:
            out.append("{% call m() %}" + program(r, depth + 1) + "{% endcall %}")
        else:
            out.append("{{ " + value + " }}")
    return "".join(out)


def random_cases():
    """(id, template, context) triples from fixed seeds."""
    r = random.Random(20240726)
    cases = []
    for k in range(160):
        template = "{{ " + expression(r) + " }}" if k % 6 else \
            "{% for x in " + expression(r) + " %}{{ loop.index }}:{{ x }};{% else %}E{% endfor %}"
        cases.append((f"random/expression-{k}", template, EXPRESSION_CONTEXT))
    for k in range(160):
        cases.append((f"random/layout-{k}", layout(r), {}))
    prelude = "{% set ns = namespace(x=0) %}{% set a = 5 %}{% macro m(q=1) %}<{{ q }}{{ a }}>{% endmacro %}"
    for k in range(120):
        cases.append((f"random/scope-{k}", prelude + program(r), {"b": 2}))
    return cases
