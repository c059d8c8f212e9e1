#!/usr/bin/env python3
"""Every ```c block of README.md and docs/*.md compiles as C99 and as C++11 with gcc and clang under
-Wall -Wextra -Wpedantic -Werror (syntax and types: no link, no run).

A block is a translation unit: its preprocessor lines and function definitions stay at file scope, every
other line goes into the body of a function (a snippet of statements). <stdio.h>, <stdlib.h>,
<string.h> and, when the block does not include it itself, "pclreduce.h" come first. A block that is
deliberately partial is marked by the line `<!-- partial -->` right before its fence and is skipped.
Prints "doc_blocks: N passed, M failed" (a block counts once per compiler and language)."""
import glob, os, re, subprocess, sys, tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CUDA_INC = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "include")
FLAGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", "-I" + ROOT]
COMPILERS = [["gcc", "-std=c99", "-x", "c"], ["clang", "-std=c99", "-x", "c"],
             ["g++", "-std=c++11", "-x", "c++"], ["clang++", "-std=c++11", "-x", "c++"]]
FUNCTION = re.compile(r"^[A-Za-z_][\w \*]*\([^;]*\)\s*\{\s*$")  # a definition starting at column 0


def blocks(path):
    """(first line, text) of each ```c block of path that is not marked partial."""
    lines = open(path, encoding="utf-8").read().split("\n")
    k = 0
    while k < len(lines):
        if lines[k].strip() == "```c":
            partial = k > 0 and lines[k - 1].strip() == "<!-- partial -->"
            end = k + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            if not partial:
                yield k + 1, "\n".join(lines[k + 1:end])
            k = end
        k += 1


def unit(text):
    """The block as a translation unit."""
    head, body, scope = [], [], []
    in_function = False
    for line in text.split("\n"):
        if line.startswith("#"):
            head.append(line)
        elif in_function or FUNCTION.match(line):
            scope.append(line)
            in_function = not line.startswith("}")
        else:
            body.append(line)
    has_header = any("pclreduce.h" in h for h in head)
    pre = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"]
    out = head + pre + ([] if has_header else ['#include "pclreduce.h"'])
    out += scope
    if any(b.strip() for b in body):
        out += ["static void pclr_doc_block(void) {"] + body + ["}", "int pclr_doc_use(void);",
                                                                "int pclr_doc_use(void) { pclr_doc_block(); return 0; }"]
    return "\n".join(out) + "\n"


def main():
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    passed = failed = 0
    have = [c for c in COMPILERS if subprocess.call(["sh", "-c", "command -v " + c[0]], stdout=subprocess.DEVNULL) == 0]
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            for line, text in blocks(path):
                src = os.path.join(tmp, "block.c")
                open(src, "w").write(unit(text))
                for cc in have:
                    args = cc + FLAGS + (["-I" + CUDA_INC] if os.path.isdir(CUDA_INC) else []) + [src]
                    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
                    if r.returncode == 0:
                        passed += 1
                    else:
                        failed += 1
                        where = "%s:%d" % (os.path.relpath(path, ROOT), line)
                        print("FAIL %s (%s %s):\n%s" % (where, cc[0], cc[1], "\n".join(r.stdout.split("\n")[:8])))
    print("doc_blocks: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
