#!/usr/bin/env python3
"""Dead definitions in generated kernels: every definition a kernel holds must be referenced by the rest of it.

usage: kernel_dead_code.py FILE...        kernel files (OpenCL C .cl, CUDA C .cu, GLSL .comp); '-' reads stdin
       kernel_dead_code.py --matrix       pclreduce-gen over a seeded sample of configurations and the golden
                                          kernels of tests/kernels/ (run from the repository root; see --help)

A definition is
  #define NAME / #define NAME(...)                   (its logical line, continuations included)
  a function: TYPE... NAME(...) { ... } at file level (OpenCL/CUDA: PCLR_FN ..., static __device__ ...; GLSL: TYPE NAME()
  typedef ... NAME;  typedef struct ... { ... } NAME;
  struct NAME { ... };
  a file-level variable: shared T NAME[...]; (GLSL), __constant T NAME = ...; (OpenCL) and the like
It is dead when NAME, as a word, occurs nowhere in the kernel outside its own definitions (all definitions of that name
together: #if/#else branches, #undef and #define again), with comments stripped first; a function that only calls itself
is dead. Then, repeatedly, a definition referenced only from inside dead definitions is dead too (reported as "only
used by dead code"). The entry points (pclr_reduce, GLSL main; and what a kernel's "entry:" comment names) are exempt.
Macros the kernel only tests (#ifdef PCLR_NVIDIA_PTX: the host defines them) are not definitions. GLSL interface blocks
(layout(...) buffer/uniform NAME { ... }) are the host's bindings, not definitions.
Exit status: 0 none dead, 1 some dead (each listed as FILE: kind NAME; --matrix: also a generator failure other than
its exit status 2, a combination the library refuses, which is skipped), 2 bad usage or no pclreduce-gen.
"""
import shlex
import os
import random
import re
import subprocess
import sys
import tempfile
import time

# Names that must stay in a kernel although nothing in it references them (the host looks them up, say).
# Each entry: name -> why. Kept empty on purpose: a new entry needs a reason an outside reader can check.
ALLOWLIST = {
}

ENTRY_POINTS = {"pclr_reduce", "main"}

# Identifiers that take parentheses in a declaration's head but are not its name.
HEAD_ATTRIBUTES = {"__launch_bounds__", "__align__", "__attribute__", "__declspec", "layout", "alignas", "_Alignas",
                   "__attribute", "decltype", "sizeof", "asm"}
KEYWORDS = {"if", "for", "while", "switch", "return", "else", "do", "case", "sizeof"}

WORD = re.compile(r"[A-Za-z_]\w*")


def strip_comments(text):
    """Comments become spaces (newlines kept, so that line numbers stay); string and char literals are kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Definition:
    def __init__(self, name, kind, start, end):
        self.name, self.kind, self.start, self.end = name, kind, start, end  # character span [start, end)


def find_definitions(code):
    """The definitions of comment-free code, and the code with preprocessor lines blanked (for the C-level scan)."""
    defs = []
    # preprocessor logical lines
    blanked = list(code)
    for m in re.finditer(r"(?m)^[ \t]*#(?:[^\n\\]|\\.|\\\n)*", code):
        d = re.match(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", m.group(0))
        if d:
            defs.append(Definition(d.group(1), "macro", m.start(), m.end()))
        for k in range(m.start(), m.end()):
            if blanked[k] != "\n":
                blanked[k] = " "
    c = "".join(blanked)
    # file-level declarations: a head up to '{' or ';' at depth 0
    i, n = 0, len(c)
    while i < n:
        while i < n and c[i].isspace():
            i += 1
        if i >= n:
            break
        start, depth = i, 0
        while i < n and not (depth == 0 and c[i] in "{;"):
            if c[i] in "([":
                depth += 1
            elif c[i] in ")]":
                depth -= 1
            elif c[i] == "}" and depth == 0:  # a stray brace: skip it
                break
            i += 1
        if i >= n:
            break
        if c[i] == "}":
            i += 1
            continue
        head = c[start:i]
        tail = ""
        if c[i] == "{":
            depth = 0
            while i < n:
                if c[i] == "{":
                    depth += 1
                elif c[i] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            i += 1
            # struct/typedef/block: up to its ';'
            words = WORD.findall(head)
            if words and words[0] in ("typedef", "struct", "layout", "union", "enum"):
                j = c.find(";", i)
                j = n if j < 0 else j
                tail = c[i:j]
                i = j + 1
        else:
            i += 1
        end = i
        d = classify(head, tail, c[start:end])
        if d:
            defs.append(Definition(d[0], d[1], start, end))
    return defs


def classify(head, tail, whole):
    words = WORD.findall(head)
    if not words:
        return None
    if words[0] == "layout":  # GLSL interface block or layout qualifier: the host's
        return None
    if words[0] == "typedef":
        names = WORD.findall(tail) if tail else WORD.findall(re.sub(r"\[.*?\]", "", head))
        return (names[-1], "typedef") if names else None
    if words[0] == "struct" and "(" not in re.sub(r"__align__\s*\([^)]*\)", "", head):
        names = [w for w in words[1:] if w not in HEAD_ATTRIBUTES]
        if names and whole.rstrip().endswith(";") and "{" in whole:
            return names[-1], "struct"
        return None
    if words[0] in KEYWORDS or words[0] in ("extension", "precision", "version"):
        return None
    # a function: the first NAME( that is not an attribute
    for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", head):
        if m.group(1) in HEAD_ATTRIBUTES:
            continue
        if len(WORD.findall(head[:m.start()])) == 0:
            return None  # a call or an expression, not a definition
        if whole.rstrip().endswith(";") and "{" not in whole:
            return m.group(1), "prototype"
        return m.group(1), "function"
    # a file-level variable: TYPE NAME[...] (= ...);
    if "{" not in whole or "=" in head:
        h = re.sub(r"\[.*?\]", "", head.split("=")[0])
        names = WORD.findall(h)
        if len(names) >= 2:
            return names[-1], "variable"
    return None


def dead_definitions(text):
    """[(kind, name, note)] of a kernel's text."""
    entries = set(ENTRY_POINTS)
    m = re.search(r"entry:\s*([A-Za-z_]\w*)", text)
    if m:
        entries.add(m.group(1))
    code = strip_comments(text)
    defs = find_definitions(code)
    byname = {}
    for d in defs:
        byname.setdefault(d.name, []).append(d)
    # words outside each definition group: the spans of a name's definitions are excluded; a #undef is no use
    undefs = [(m.start(), m.end()) for m in re.finditer(r"(?m)^[ \t]*#[ \t]*undef\b[^\n]*", code)]
    occurrences = {}
    for m in WORD.finditer(code):
        occurrences.setdefault(m.group(0), []).append(m.start())

    def inside(pos, spans):
        return any(a <= pos < b for a, b in spans)

    dead, result = set(), []
    rnd = 0
    while True:
        dead_spans = [(d.start, d.end) for name in dead for d in byname[name]]
        found = []
        for name, group in byname.items():
            if name in dead or name in entries or name in ALLOWLIST:
                if name in entries and all(d.kind == "prototype" for d in group):
                    pass
                continue
            if all(d.kind == "prototype" for d in group):
                continue
            own = [(d.start, d.end) for d in group]
            uses = [p for p in occurrences.get(name, []) if not inside(p, own) and not inside(p, undefs)]
            live = [p for p in uses if not inside(p, dead_spans)]
            if not live:
                kinds = "/".join(sorted({d.kind for d in group if d.kind != "prototype"}))
                found.append((kinds, name, "only used by dead code" if uses else ""))
        if not found:
            break
        for f in found:
            dead.add(f[1])
        result += found
        rnd += 1
    return result


def check_text(label, text, out):
    dead = dead_definitions(text)
    for kind, name, note in dead:
        out.write("%s: dead %s %s%s\n" % (label, kind, name, " (%s)" % note if note else ""))
    return not dead


# ------------------------------------------------------------------ the checker's own check

SELF_TEST = r"""/* entry: pclr_reduce(in) */
#define PCLR_FN static inline
#define PCLR_USED 4 /* PCLR_DEAD_IN_COMMENT */
#define PCLR_DEAD_MACRO(x) ((x) + \
    PCLR_USED)
#ifdef PCLR_NVIDIA_PTX
#define pclr_keep(v) pclr_keep_ptx(v)
#else
#define pclr_keep(v) (v)
#endif
typedef float pclr_t;
typedef struct pclr_pair { float a, b; } pclr_pair;
struct __align__(16) pclr_dead_struct { pclr_t s[4]; };
PCLR_FN pclr_t pclr_chain(pclr_t x) { return x; } // only pclr_dead_fn calls it
PCLR_FN pclr_t pclr_dead_fn(pclr_t x) { return pclr_chain(x); }
PCLR_FN int pclr_self(int n) { return n ? pclr_self(n - 1) : 0; }
PCLR_FN pclr_t pclr_used(pclr_pair p) { return pclr_keep(p.a) * PCLR_USED; }
__kernel void pclr_reduce(__global pclr_t *in) { in[0] = pclr_used(*(pclr_pair *)in); }
"""
SELF_TEST_DEAD = {"PCLR_DEAD_MACRO", "pclr_dead_struct", "pclr_chain", "pclr_dead_fn", "pclr_self"}


def self_test():
    found = {name for _, name, _ in dead_definitions(SELF_TEST)}
    if found != SELF_TEST_DEAD:
        print("FAIL: the checker's own test: found %s, expected %s" % (sorted(found), sorted(SELF_TEST_DEAD)))
        return False
    return True


# ------------------------------------------------------------------ the matrix: pclreduce-gen over a sample

TYPES = ["uint8", "int8", "uint16", "int16", "uint", "int", "uint64", "int64", "half", "float", "double"]
OPS = ["sum", "min", "max", "argmin", "argmax", "minmax", "stats", "count", "prod", "and", "or", "xor", "any", "all", "argminmax",
       "histogram"]
ACCUMULATE = ["native", "wide", "compensated", "exact"]
VARIANTS = ["naive", "sequential", "unrolled", "shuffle", "collective"]
FINISHES = ["last_group", "atomic", "partials"]
BACKENDS = ["opencl", "cuda", "vulkan"]
MAPS = [["--map", "x*x"], ["--map", "x*y", "--type2", "float"], ["--map", "x*y", "--type2", "int"],
        ["--components", "4", "--map", "x.x+x.y"], ["--components", "2", "--map", "x.x*x.y"],
        ["--map", "clamp(x,lo,hi)", "--param", "lo=-5", "--param", "hi=100"], ["--map", "x>t?1:0", "--param", "t=3"],
        ["--map", "abs(x)+i"], ["--map", "sqrt(x)"], ["--map", "exp(x)-1"], ["--map", "min(x,y)", "--type2", "int"]]
# shapes that reach every layout strategy (tests/kernels/list.txt): team rows, shared rows, wave rows, staged rows,
# column tiles, few-rows columns, and segments
LAYOUTS = [["--rows", "1000", "--cols", "37"], ["--rows", "4", "--cols", "1000000"], ["--rows", "1000", "--cols", "1000"],
           ["--rows", "100000", "--cols", "10", "--pitch", "12"], ["--rows", "5000", "--cols", "64", "--axis", "col"],
           ["--rows", "3", "--cols", "100000", "--axis", "col"], ["--rows", "1000", "--cols", "1000", "--axis", "col"],
           ["--rows", "7", "--cols", "3"], ["--rows", "200", "--cols", "300", "--pitch", "320"],
           ["--rows", "1", "--cols", "100"], ["--rows", "100", "--cols", "1", "--axis", "col"],
           ["--segments", "tests/kernels/segments.bin"], ["--segments", "@SEGMENTS_SHORT"], ["--segments", "@SEGMENTS_LONG"]]


def sample_configs(rng, count):
    """count argument lists, drawn to avoid most of the combinations the library refuses (those still drawn are
    skipped: pclreduce-gen exits 2)."""
    configs = []
    floats = ("half", "float", "double")
    for _ in range(count):
        backend, t, op = rng.choice(BACKENDS), rng.choice(TYPES), rng.choice(OPS)
        layout = backend != "vulkan" and rng.random() < 0.4
        a = ["--backend", backend, "--type", t, "--op", op]
        if op == "histogram":  # bins in local memory, in a work-item's own (stride local), or in global memory (one array)
            weighted = rng.random() < 0.3  # (each bin's sum of the float weights y: up to 256 bins)
            a += ["--bins", str(rng.choice([1, 7, 256] + ([] if weighted else [1025, 4001, 65536])))]
            a += (["--clamp"] if rng.random() < 0.5 else []) + (["--weighted", "--type2", "float"] if weighted else [])
        if rng.random() < 0.6:
            acc = rng.choice(ACCUMULATE)
            if acc == "compensated" and t not in floats:
                acc = "wide"
            if acc == "exact" and (t not in floats or op != "sum" or layout or backend == "vulkan") or op == "histogram":
                acc = "native"
            a += ["--accumulate", acc]
        if rng.random() < 0.6:
            v = rng.choice(VARIANTS)
            if v == "collective" and (backend != "opencl" or layout or op == "histogram"):
                v = "unrolled"
            a += ["--variant", v]
        if not layout and rng.random() < 0.5:
            f = rng.choice(FINISHES)
            if f == "atomic" and t not in ("uint", "int") or f == "partials" and op not in ("sum", "min", "max") or op == "histogram":
                f = "last_group"
            a += ["--finish", f]
        if not layout and rng.random() < 0.4:
            a += ["--vector", str(rng.choice([1, 2, 4, 8, 16]))]
        if rng.random() < 0.3:
            a += ["--stride", rng.choice(["global", "local", "simd"] if backend == "opencl" else ["global", "local"])]
        if rng.random() < 0.3:
            a += ["--unroll", str(rng.choice([1, 2, 4, 8]))]
        if rng.random() < 0.2:
            a += ["--group", str(rng.choice([32, 64, 128, 256, 512, 1024]))]
        if rng.random() < 0.2:
            a += ["--wave", str(rng.choice([32, 64]))]
        if rng.random() < 0.3:
            a += rng.choice(MAPS)
        if layout:
            a += rng.choice(LAYOUTS)
        configs.append(a)
    return configs


def golden_configs():
    out = []
    with open("tests/kernels/list.txt") as f:
        for line in f:
            parts = shlex.split(line, comments=False) if line.strip() and not line.startswith("#") else []
            if not parts or parts[0].startswith("#"):
                continue
            letters = {"o": "opencl", "c": "cuda", "v": "vulkan"}
            for ch in parts[1]:
                out.append((parts[0], ["--backend", letters[ch]] + parts[2:]))
    return out


def write_segments(path, lengths):
    offsets = [0]
    for n in lengths:
        offsets.append(offsets[-1] + n)
    with open(path, "wb") as f:
        for o in offsets:
            f.write(int(o).to_bytes(8, "little"))


def matrix(argv):
    gen = os.environ.get("PCLR_GEN", "build/pclreduce-gen")
    full = os.environ.get("PCLR_TEST_FULL", "0") not in ("", "0")
    seed = int(os.environ.get("PCLR_TEST_SEED") or time.time())
    count = int(os.environ.get("PCLR_DEAD_CODE_SAMPLES") or (3000 if full else 600))
    if not os.path.exists(gen):
        sys.stderr.write("kernel_dead_code.py: %s not found (make build/pclreduce-gen)\n" % gen)
        return 2
    print("kernel-dead-code: seed %d (PCLR_TEST_SEED=%d reproduces it), %d sampled configurations%s"
          % (seed, seed, count, " (PCLR_TEST_FULL)" if full else ""))
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="pclr-dead-code-")
    short, long_ = os.path.join(tmp, "short.bin"), os.path.join(tmp, "long.bin")
    write_segments(short, [rng.randrange(0, 40) for _ in range(3000)])
    write_segments(long_, [rng.randrange(10000, 200000) for _ in range(12)])
    jobs = [("golden " + name, a) for name, a in golden_configs()]
    jobs += [(None, a) for a in sample_configs(rng, count)]
    passed = failed = refused = 0
    if self_test():
        passed += 1
    else:
        failed += 1
    seen = set()
    t0 = time.time()
    for label, a in jobs:
        a = [short if x == "@SEGMENTS_SHORT" else long_ if x == "@SEGMENTS_LONG" else x for x in a]
        key = tuple(a)
        if key in seen:
            continue
        seen.add(key)
        p = subprocess.run([gen] + a, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        shown = "pclreduce-gen " + " ".join(x if x not in (short, long_) else "SEGMENTS(%s)" % os.path.basename(x) for x in a)
        if p.returncode == 2:  # a combination the library refuses
            refused += 1
            continue
        if p.returncode != 0:
            failed += 1
            print("FAIL: %s: exit %d: %s" % (shown, p.returncode, p.stderr.decode(errors="replace").strip()))
            continue
        dead = dead_definitions(p.stdout.decode(errors="replace"))
        if dead:
            failed += 1
            print("FAIL: %s%s: %s" % (label + ": " if label else "", shown,
                                      ", ".join("%s %s%s" % (k, n, " (%s)" % note if note else "") for k, n, note in dead)))
        else:
            passed += 1
    # the committed golden kernels as they are (the step `kernels` checks that they are the generator's)
    for name in sorted(os.listdir("tests/kernels")):
        if name.rsplit(".", 1)[-1] not in ("cl", "cu", "comp"):
            continue
        path = os.path.join("tests/kernels", name)
        with open(path, encoding="utf-8", errors="replace") as f:
            dead = dead_definitions(f.read())
        if dead:
            failed += 1
            print("FAIL: %s: %s" % (path, ", ".join("%s %s%s" % (k, n, " (%s)" % note if note else "") for k, n, note in dead)))
        else:
            passed += 1
    for f in (short, long_):
        os.unlink(f)
    os.rmdir(tmp)
    print("kernel-dead-code: %d kernels checked (generated and committed), %d configurations refused by the library (skipped), %.1fs"
          % (passed + failed, refused, time.time() - t0))
    print("kernel-dead-code (seed %d): %d passed, %d failed" % (seed, passed, failed))
    return 1 if failed else 0


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__ + "\n--matrix: PCLR_GEN (default build/pclreduce-gen), PCLR_TEST_SEED (default: the time), "
                         "PCLR_TEST_FULL=1 (3000 samples instead of 600), PCLR_DEAD_CODE_SAMPLES=N\n")
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "--matrix":
        return matrix(argv[2:])
    ok = True
    for path in argv[1:]:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8", errors="replace").read()
        ok = check_text(path, text, sys.stdout) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
