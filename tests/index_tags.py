"""pclreduce.h's index (its first comment) names every section tag once, and each tag marks exactly one section."""
import re, sys
text = open("pclreduce.h", encoding="utf-8").read()
head, body = text.split("#ifndef PCLREDUCE_H", 1)
index = set(re.findall(r">>([a-z][a-z-]*)", head))
marks = re.findall(r"^/\*.*?>>([a-z][a-z-]*)", body, re.M)
bad = [t for t in sorted(index) if marks.count(t) != 1] + [t for t in sorted(set(marks)) if t not in index]
for t in bad:
    print("FAIL: tag >>%s: %d sections, %s in the index" % (t, marks.count(t), "listed" if t in index else "not"))
print("index-tags: %d passed, %d failed" % (len(index) - len([t for t in bad if t in index]), len(bad)))
sys.exit(1 if bad else 0)
