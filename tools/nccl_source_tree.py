"""Reading a source tree for the site tools: every source file of a git tag (one `git cat-file
--batch` a tag) or of a plain directory, and the release tags of a NCCL checkout.

tools/nccl_message_sites.py, tools/nccl_macro_uses.py and tools/nccl_trail_sites.py read NCCL's
sources through these; nothing is fetched.
"""
import os
import re
import subprocess

SOURCE_EXT = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hh", ".hpp", ".inc")

def git(git_dir, *args):
    p = subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True)
    if p.returncode != 0:
        raise SystemExit2(f"git --git-dir {git_dir} {' '.join(args)}: "
                          f"{p.stderr.decode(errors='replace').strip()}")
    return p.stdout


class SystemExit2(Exception):
    pass


def wanted(path):
    low = path.lower()
    if not low.endswith(SOURCE_EXT):
        return False
    parts = low.split("/")
    return not any(p in ("test", "tests", "unit_tests", "third-party", "3rd-party", "googletest")
                   for p in parts[:-1])


def files_at_tag(git_dir, tag):
    names = git(git_dir, "ls-tree", "-r", "--name-only", tag).decode().splitlines()
    names = [n for n in names if wanted(n)]
    if not names:
        return []
    # one git cat-file for every blob of the tag
    req = "".join(f"{tag}:{n}\n" for n in names).encode()
    p = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], input=req,
                       capture_output=True)
    if p.returncode != 0:
        raise SystemExit2(f"git cat-file at {tag}: {p.stderr.decode(errors='replace').strip()}")
    out, data, pos = [], p.stdout, 0
    for n in names:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) < 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        out.append((n, data[pos:pos + size].decode("utf-8", errors="replace")))
        pos += size + 1
    return out


def files_in_tree(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            full = os.path.join(d, f)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if wanted(rel):
                with open(full, encoding="utf-8", errors="replace") as fh:
                    out.append((rel, fh.read()))
    return out


RELEASE_RE = re.compile(r"^v(\d+)\.(\d+)\.(\d+)-(\d+)$")


def release_tags(git_dir, since=(2, 4)):
    tags = git(git_dir, "tag").decode().split()
    rel = []
    for t in tags:
        m = RELEASE_RE.match(t)
        if m and tuple(map(int, m.groups()[:2])) >= since:
            rel.append((tuple(map(int, m.groups())), t))
    return [t for _, t in sorted(rel)]
