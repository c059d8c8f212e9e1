#!/usr/bin/env python3
"""Every ```c block of README.md and docs/*.md compiles as C99 and as C++11 with gcc and clang under
-Wall -Wextra -Wpedantic -Werror (syntax and types: no link, no run).

A block is a translation unit: one that defines a function is taken as a file as it stands; in any other
(a snippet of statements) the preprocessor lines stay at file scope and the rest goes into a function. <stdio.h>, <stdlib.h>,
<string.h> and, when the block does not include it itself, "pclreduce.h" come first. A block that is
deliberately partial is marked by the line `<!-- partial -->` right before its fence and is skipped.
Every relative link of those pages and CHANGELOG.md leads to a file and heading that exist.
Prints "doc_blocks: N passed, M failed" (a block counts once per compiler and language)."""
import glob, os, re, subprocess, sys, tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CUDA_INC = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "include")
FLAGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wno-unused-function", "-fsyntax-only", "-I" + ROOT]
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
    pre = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"]
    if any(FUNCTION.match(line) for line in text.split("\n")):  # a file of its own: as it stands
        return "\n".join(pre + ([] if "pclreduce.h" in text else ['#include "pclreduce.h"']) + [text]) + "\n"
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
    out = head + pre + ([] if has_header else ['#include "pclreduce.h"'])
    out += scope
    if any(b.strip() for b in body):
        out += ["static void pclr_doc_block(void) {"] + body + ["}", "int pclr_doc_use(void);",
                                                                "int pclr_doc_use(void) { pclr_doc_block(); return 0; }"]
    return "\n".join(out) + "\n"


def anchors(path):
    """The GitHub anchors of a page's headings."""
    out = set()
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") and not line.startswith(("#define", "#include")):
            out.add(re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-"))
    return out


def broken_links(files):
    """Each relative link to a file or heading that does not exist."""
    bad = []
    for path in files:
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"\]\(([^)#\s]*)(#[^)\s]*)?\)", text):
            target, anchor = m.group(1), m.group(2)
            if target.startswith(("http:", "https:")):
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            if not os.path.exists(dest):
                bad.append("%s: no file %s" % (os.path.relpath(path, ROOT), target))
            elif anchor and dest.endswith(".md") and anchor[1:] not in anchors(dest):
                bad.append("%s: no heading %s%s" % (os.path.relpath(path, ROOT), target, anchor))
    return bad


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
    for b in broken_links(files + [os.path.join(ROOT, "CHANGELOG.md")]):
        print("FAIL link: " + b)
        failed += 1
    passed += 1  # the link check
    print("doc_blocks: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
