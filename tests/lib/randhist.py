# SPDX-License-Identifier: GPL-2.0-only
"""Random git histories for tests and benches, through git fast-import.

make_history(path, n, seed, ...) builds a repository of n commits with
topic branches, 2-parent merges and octopus merges, committer dates that
mostly increase with ties (several commits in the same second, as scripted
histories have), and returns the commit shas in creation order with their
parent lists.
"""
import os
import random
import subprocess

TUNABLES = ("glibc.malloc.trim_threshold=268435456:"
            "glibc.malloc.top_pad=67108864")


def git_env():
    env = dict(os.environ)
    env["GLIBC_TUNABLES"] = TUNABLES
    for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(k, None)
    env.update(GIT_AUTHOR_NAME="A U Thor", GIT_AUTHOR_EMAIL="a@example.com",
               GIT_COMMITTER_NAME="C O Mitter",
               GIT_COMMITTER_EMAIL="c@example.com",
               GIT_CONFIG_NOSYSTEM="1", HOME=env.get("HOME", "/tmp"))
    return env


def gen_dag(n, seed, merge_rate=0.25, octopus_rate=0.05, tie_rate=0.3,
            max_topics=6):
    """parents[i] (list of earlier indices, first parent first), dates[i]."""
    rnd = random.Random(seed)
    parents = [[]]
    dates = [1_100_000_000]
    main = 0
    topics = []  # tips of open topic branches
    t = dates[0]
    for i in range(1, n):
        t += 0 if rnd.random() < tie_rate else rnd.randint(1, 90)
        r = rnd.random()
        if topics and r < merge_rate:
            # merge one or more topics into main
            k = 1
            if rnd.random() < octopus_rate / merge_rate and len(topics) > 1:
                k = rnd.randint(2, min(3, len(topics)))
            picked = rnd.sample(range(len(topics)), k)
            ps = [main] + [topics[j] for j in picked]
            for j in sorted(picked, reverse=True):
                del topics[j]
            parents.append(ps)
            main = i
        elif r < merge_rate + 0.35 or not topics:
            if len(topics) < max_topics and rnd.random() < 0.3:
                # new topic forked from a recent main commit
                back = main
                for _ in range(rnd.randint(0, 6)):
                    if parents[back]:
                        back = parents[back][0]
                parents.append([back])
                topics.append(i)
            else:
                parents.append([main])
                main = i
        else:
            j = rnd.randrange(len(topics))
            parents.append([topics[j]])
            topics[j] = i
        dates.append(t)
    # merge what is left so that everything hangs off the tip
    if topics:
        t += 1
        parents.append([main] + topics)
        dates.append(t)
    return parents, dates


def fast_import_stream(parents, dates, files=64):
    out = []
    for i, ps in enumerate(parents):
        msg = "c%d\n" % i
        out.append("commit refs/heads/master\nmark :%d\n" % (i + 1))
        out.append("committer C O Mitter <c@example.com> %d +0000\n"
                   % dates[i])
        out.append("data %d\n%s" % (len(msg), msg))
        if ps:
            out.append("from :%d\n" % (ps[0] + 1))
            for p in ps[1:]:
                out.append("merge :%d\n" % (p + 1))
        else:
            out.append("deleteall\n")
        body = "line %d\n" % i
        out.append("M 100644 inline f%d\ndata %d\n%s\n"
                   % (i % files, len(body), body))
    return "".join(out)


def make_history(path, n, seed, **kw):
    parents, dates = gen_dag(n, seed, **kw)
    env = git_env()
    subprocess.run(["git", "init", "-q", path], check=True, env=env)
    marks = os.path.join(path, ".git", "marks")
    stream = fast_import_stream(parents, dates)
    subprocess.run(["git", "-C", path, "fast-import", "--quiet",
                    "--export-marks=" + marks], input=stream.encode(),
                   check=True, env=env)
    shas = [None] * len(parents)
    with open(marks) as f:
        for line in f:
            m, sha = line.split()
            shas[int(m[1:]) - 1] = sha
    os.unlink(marks)
    return shas, parents, dates
