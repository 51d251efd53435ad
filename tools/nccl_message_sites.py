#!/usr/bin/env python3
"""List the message sites of a NCCL (or NCCL net plugin) source tree: what NCCL can print.

Every WARN(...) call, every INFO(...) that prints a failure trail (the `"%s:%d -> %d"` lines of
NCCLCHECK and friends, `"-> %d [Async thread]"`) or a failure in words (failed / error / cannot /
mismatch / timed out ...), and, for each, the ncclResult_t the surrounding code returns
(ncclSystemError, ncclInternalError, ncclInvalidUsage, ncclRemoteError, ...). For aws-ofi-nccl the
macros are NCCL_OFI_WARN / NCCL_OFI_INFO; for a plugin that logs with absl (`--plugin absl`,
Google's GPUDirect-TCPXO) every LOG / PLOG / LOG_IF / CHECK stream, WARNING and up as WARN.
Output is JSONL, one site a line:

    {"tag", "file", "line", "macro", "level" (WARN | INFO), "kind" (warn | trail | failure),
     "subsystem", "format" (string literals joined across lines, C escapes decoded, macros kept
     as <NAME>), "regex" (a Python regex for the text the format prints), "returns" (error codes
     named within the next few statements, or by the enclosing macro), "in_macro" (the #define
     the call sits in, if any), "function" (best effort)}

Sources it reads: a git directory at one or more tags (`git show TAG:path`, `git ls-tree`), or
a plain directory (`--tree`). It never fetches anything.

    tools/nccl_message_sites.py --git-dir /path/nccl.git --tag v2.30.7-1 --jsonl out.jsonl
    tools/nccl_message_sites.py --git-dir /path/nccl.git --all-tags --summary     # v2.4 .. newest
    tools/nccl_message_sites.py --tree /path/aws-ofi-nccl --plugin ofi --summary
    tools/nccl_message_sites.py --git-dir /path/nccl-plugin-gpudirecttcpx.git --tag 4b8ea7f \
        --define PRODUCT_NAME=GPUDirectTCPX --distinct sites.jsonl   # src/macro.h's text
    tools/nccl_message_sites.py --git-dir /path/nccl-plugin-gpudirect-tcpxo.git --tag 04815d1 \
        --plugin absl --only tcpdirect_plugin/ --sink-format 'NET/FasTrak %s: ' --summary
                                     # absl's LOG(...) << streams, as its sink hands them to NCCL
    tools/nccl_message_sites.py --git-dir /path/rccl.git --tag rocm-6.2.2 --only src/ \
        --hipify /path/HIPIFY/bin/hipify-perl --distinct sites.jsonl
                                     # RCCL's texts as its build's hipify-perl renames them
    tools/nccl_message_sites.py --git-dir /path/nccl.git --tag v2.4.8-1 --tag v2.5.7-1 \
        --distinct sites.jsonl       # one line per distinct message, with its tags and file:line
    tools/nccl_message_sites.py --git-dir /path/nccl.git --all-tags --prefixes prefixes.tsv
                                     # the "NCCL WARN " / "NCCL INFO " line formats of each tag

Exit 0 on success, 2 on bad input (named).
"""
import argparse
import collections
import json
import os
import re
import sys

from nccl_source_tree import SystemExit2, files_at_tag, files_in_tree, release_tags


# Macros that print, per flavour: name -> (level, index of the format argument).
MACROS = {
    "absl": {},  # LOG(...) << streams, read by absl_sites_in_file
    "nccl": {
        "WARN": ("WARN", 0),
        "INFO": ("INFO", 1),
        "INFO_LOC": ("INFO", 1),
        "INFO_LOC_FN": ("INFO", 4),
    },
    "ofi": {
        "NCCL_OFI_WARN": ("WARN", 0),
        "NCCL_OFI_WARN_ONCE": ("WARN", 0),
        "NCCL_OFI_INFO": ("INFO", 1),
        "NCCL_OFI_INFO_ONCE": ("INFO", 1),
        # the plugin also uses NCCL's spelling in a few files
        "WARN": ("WARN", 0),
        "INFO": ("INFO", 1),
    },
}

# Text a macro puts before the format (aws-ofi-nccl's NCCL_OFI_* pass "NET/OFI " fmt to NCCL's
# logger, include/nccl_ofi_log.h): recorded per site as "prefix", printed before the format.
PREFIXES = {"NCCL_OFI_WARN": "NET/OFI ", "NCCL_OFI_WARN_ONCE": "NET/OFI ",
            "NCCL_OFI_INFO": "NET/OFI ", "NCCL_OFI_INFO_ONCE": "NET/OFI "}

ERROR_CODES = ("ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
               "ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress",
               "ncclTimeout")

TRAIL_RE = re.compile(r"->\s*%d")
# "retrying": a call that failed and is tried again ("%s: connect to %s returned %s, retrying
# (%d/%ld) after sleep for %u msec", src/os/linux.cc:293 @ v2.30.7-1), its failure in the %s.
FAILURE_WORDS = re.compile(
    r"fail|error|unable|cannot|can't|could not|couldn't|invalid|mismatch|timed? ?out|abort|"
    r"not supported|unsupported|no device|not found|refused|unreachable|too (?:small|large|many|old)|"
    r"exceed|insufficient|disabled|retrying", re.I)

# Path -> subsystem, first match wins. Paths are matched lower-case, from the tree root.
SUBSYSTEMS = [
    (r"^contrib/", "contrib"),
    (r"^(plugins|ext-net|ext-tuner|ext-profiler|ext-env)/", "plugin-example"),
    (r"(^|/)ras/", "ras"),
    (r"net_ib|ibvwrap|ibvsymbols|ibvcore|mlx5dv|/ib/|ib_", "ib-verbs"),
    (r"net_socket", "socket-net"),
    (r"socket", "socket"),
    (r"bootstrap", "bootstrap"),
    (r"proxy", "proxy"),
    (r"nvls", "nvls"),
    (r"coll_net|collnet", "coll-net"),
    (r"transport/p2p|p2p\.", "p2p"),
    (r"transport/shm|shmutils|shm\.", "shm"),
    (r"cumem|cudawrap|cudawrap|cudart|alloc|mem_manager|register", "cuda-memory"),
    (r"gdrwrap|gdr", "gdr"),
    (r"graph/tuning|tuner", "tuning"),
    (r"graph/|topo|xml", "graph-topo"),
    (r"enqueue|argcheck|collectives|group\.|ce_coll", "enqueue"),
    (r"(^|/)net\.c|transport/net|plugin/net|net_v\d|plugin/", "net-plugin"),
    (r"gin/|gin_", "gin"),
    (r"init|channel|transport\.c", "init"),
    (r"checks\.|debug", "checks"),
    (r"nvml", "nvml"),
    (r"mnnvl", "mnnvl"),
    (r"(^|/)os/", "os"),
    (r"dev_runtime|devcomm|symmetric", "symmetric"),
    (r"(^|/)rma/", "rma"),
    (r"param", "param"),
    (r"rings\.", "graph-topo"),
    (r"nvtx|profiler", "profiler"),
    # aws-ofi-nccl
    (r"nccl_ofi_rdma|rdma", "ofi-rdma"),
    (r"nccl_ofi_sendrecv|sendrecv", "ofi-sendrecv"),
    (r"nccl_ofi", "ofi"),
]


def subsystem_of(path):
    p = path.lower()
    for pat, name in SUBSYSTEMS:
        if re.search(pat, p):
            return name
    return "misc"


def blank_comments(text):
    """Comments replaced by spaces (newlines kept, so offsets and line numbers hold); a mask of
    which offsets are code (not inside a string, char literal or comment)."""
    out = list(text)
    code = bytearray(len(text))
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                # a backslash-newline continues a // comment in C; keep it simple: stop at newline
                out[i] = " "
                i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c in "\"'":
            q = c
            i += 1
            while i < n and text[i] != q:
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    break  # unterminated: stop at end of line
                i += 1
            i += 1
            continue
        code[i] = 1
        i += 1
    return "".join(out), code


def literal_end(text, i):
    """The offset just after the string or char literal that starts at text[i]."""
    j, n = i + 1, len(text)
    while j < n and text[j] != text[i]:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def split_top(text, start, sep, base):
    """The pieces of text from `start` that `sep` separates at bracket depth `base`, string and
    char literals skipped. base 1: a call's arguments, text[start] its '(' - stops after the ')'
    that closes it (None when none does); base 0: to the end (a `<<` chain). Returns
    (pieces, end offset)."""
    depth, i, n = 0, start, len(text)
    parts, cur = [], []
    while i < n:
        c = text[i]
        if c in "\"'":
            j = literal_end(text, i)
            cur.append(text[i:j])
            i = j
            continue
        if c in "([{":
            depth += 1
            if depth == base:
                i += 1  # the call's own '('
                continue
        elif c in ")]}":
            depth -= 1
            if base and depth == 0:
                parts.append("".join(cur).strip())
                return parts, i + 1
        elif depth == base and text.startswith(sep, i):
            parts.append("".join(cur).strip())
            cur = []
            i += len(sep)
            continue
        cur.append(c)
        i += 1
    if base:
        return None, n
    parts.append("".join(cur).strip())
    return parts, n


def split_args(text, start):
    """Arguments of the call whose '(' is at text[start]; returns (args, end offset after ')')."""
    return split_top(text, start, ",", 1)


C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0", "a": "\a",
             "b": "\b", "f": "\f", "v": "\v", "?": "?"}

# String macros given with --define NAME=TEXT (a plugin's `#define PRODUCT_NAME "..."`): their
# text replaces <NAME> in the formats, as the compiler pastes it.
DEFINES = {}

TOKEN_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*)|(\S)', re.S)


def join_format(arg):
    """The format argument as printed: string literals concatenated with escapes decoded, macros
    between them kept as <NAME>. None when the argument is not literal text (a variable)."""
    arg = re.sub(r"\\\n", "", arg)
    parts, literal = [], False
    for m in TOKEN_RE.finditer(arg):
        if m.group(1) is not None:
            literal = True
            s = m.group(1)
            parts.append(re.sub(r"\\(.)", lambda e: C_ESCAPES.get(e.group(1), e.group(1)), s))
        elif m.group(2) is not None:
            # a string macro whose text the source defines (--define): printed as that text
            parts.append(DEFINES.get(m.group(2), "<" + m.group(2) + ">"))
        else:
            return None  # an expression, not a format
    if not literal:
        return None
    return "".join(parts)


CONV_RE = re.compile(r"%%|%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|L|z|j|t|q)?([diouxXeEfFgGaAcspn])"
                     r"|<(PRI[diouxX](?:8|16|32|64|PTR|MAX)|SCN\w+)>|<([A-Za-z_]\w*)>")

PATTERNS = {
    "d": r"-?\d+", "i": r"-?\d+", "u": r"\d+", "o": r"[0-7]+", "x": r"[0-9a-fA-F]+",
    "X": r"[0-9a-fA-F]+", "e": r"[-+0-9.eEinfa]+", "E": r"[-+0-9.eEINFA]+",
    "f": r"[-+0-9.infa]+", "F": r"[-+0-9.INFA]+", "g": r"[-+0-9.eEinfa]+", "G": r"[-+0-9.eEINFA]+",
    "a": r"[-+0-9a-fA-Fxp.]+", "A": r"[-+0-9a-fA-FXP.]+", "c": r".", "s": r".*?",
    "p": r"(?:0x[0-9a-fA-F]+|\(nil\)|[0-9a-fA-F]+)", "n": r"",
}


def format_regex(fmt):
    """printf conversions -> patterns; literal text escaped; trailing newlines dropped; other
    macros (string constants we cannot see) -> '.*?'."""
    fmt = fmt.rstrip("\n")
    out, pos = [], 0
    for m in CONV_RE.finditer(fmt):
        out.append(re.escape(fmt[pos:m.start()]))
        pos = m.end()
        tok = m.group(0)
        if tok == "%%":
            out.append("%")
        elif m.group(6):  # PRIu64 and friends follow a bare '%'
            conv = m.group(6)[3]
            # the '%' before the macro was emitted as literal text; take it back
            if out and out[-1].endswith("%"):
                out[-1] = out[-1][:-1]
            out.append(PATTERNS.get(conv, r"\S+"))
        elif m.group(7):
            out.append(r".*?")
        else:
            width = m.group(2)
            pat = PATTERNS[m.group(5)]
            if width and width != "*" and m.group(5) not in "s":
                pat = r" *" + pat  # right-aligned fields are space-padded
            out.append(pat)
    out.append(re.escape(fmt[pos:]))
    rx = "".join(out)
    rx = rx.replace(re.escape("\n"), r"\s*")
    return rx


DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
FUNC_RE = re.compile(r"\n([A-Za-z_][\w:<>,\s\*&]*?\b([A-Za-z_~][\w:]*)\s*\([^;{}]*\)\s*(?:const\s*)?)\{")


def enclosing_define(code, off):
    """Name of the #define whose (backslash-continued) body holds offset off, or None."""
    line_start = code.rfind("\n", 0, off) + 1
    # walk back while the previous line ends with a backslash
    cur = line_start
    while True:
        m = DEFINE_RE.match(code, cur)
        if m:
            return m.group(1)
        if cur == 0:
            return None
        prev_end = cur - 1
        prev_start = code.rfind("\n", 0, prev_end) + 1
        if not code[prev_start:prev_end].rstrip().endswith("\\"):
            return None
        cur = prev_start


def enclosing_function(code, off):
    best = None
    for m in FUNC_RE.finditer(code, max(0, off - 20000), off):
        name = m.group(2)
        if name not in ("if", "for", "while", "switch", "return", "sizeof", "catch"):
            best = name
    return best


RETURN_RE = re.compile(r"\b(" + "|".join(ERROR_CODES) + r")\b")


def returns_after(code, end, in_macro):
    """Error codes named in the next three statements after a call (or in the rest of the macro
    body when the call sits in a #define)."""
    if in_macro:
        stop = end
        while True:
            nl = code.find("\n", stop)
            if nl < 0:
                stop = len(code)
                break
            if not code[stop:nl].rstrip().endswith("\\"):
                stop = nl
                break
            stop = nl + 1
        window = code[end:stop]
    else:
        window, k, i = [], 0, end
        while i < len(code) and k < 3 and i - end < 600:
            ch = code[i]
            window.append(ch)
            if ch in ";}":
                k += 1
            i += 1
        window = "".join(window)
    seen = []
    for m in RETURN_RE.finditer(window):
        if m.group(1) not in seen:
            seen.append(m.group(1))
    return seen


def site_kind(level, fmt):
    """warn for a WARN; for an INFO, trail ("-> %d") or failure (a failure word), else None: an
    INFO that reports no failure is not a site."""
    if level != "INFO":
        return "warn"
    if TRAIL_RE.search(fmt):
        return "trail"
    if FAILURE_WORDS.search(fmt):
        return "failure"
    return None


def sites_in_file(path, text, tag, flavour):
    macros = MACROS[flavour]
    code, mask = blank_comments(text)
    names = sorted(macros, key=len, reverse=True)
    call_re = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\s*\(")
    sub = subsystem_of(path)
    for m in call_re.finditer(code):
        if not mask[m.start()]:
            continue
        name = m.group(1)
        line_start = code.rfind("\n", 0, m.start()) + 1
        head = code[line_start:m.start()]
        if re.match(r"\s*#\s*(define|undef|ifdef|ifndef|if)\b", head) and \
                re.match(r"\s*#\s*define\s+$", head):
            continue  # the macro's own definition
        if re.search(r"#\s*define\s+$", head):
            continue
        args, end = split_args(code, m.end() - 1)
        if args is None:
            continue
        level, fidx = macros[name]
        if fidx >= len(args):
            continue
        if level == "INFO" and fidx == 1 and re.fullmatch(r"\w+|\([^()]*\)", args[0]) is None \
                and "|" not in args[0]:
            # INFO's first argument is a subsystem mask; anything else is another INFO
            pass
        fmt = join_format(args[fidx])
        if level == "INFO" and fmt is None:
            continue
        kind = site_kind(level, fmt)
        if kind is None:
            continue
        in_macro = enclosing_define(code, m.start())
        line = code.count("\n", 0, m.start()) + 1
        # GCC 9 and later give __LINE__ in a macro the line of the macro's name; older GCC and
        # clang the line of the invocation's closing parenthesis (both are seen in logs of
        # released builds: nccl#2190's misc/shmutils.cc:132 at 2.28.9, whose WARN starts at 131).
        closing = code.count("\n", 0, end - 1) + 1
        site = {
            "tag": tag, "file": path, "line": line, "macro": name, "level": level, "kind": kind,
            "subsystem": sub, "format": fmt, "regex": format_regex(fmt) if fmt is not None else None,
            "returns": returns_after(code, end, in_macro), "in_macro": in_macro,
            "function": None if in_macro else enclosing_function(code, m.start()),
        }
        if closing != line:
            site["closing_line"] = closing
        if flavour != "nccl" and name in PREFIXES:
            site["prefix"] = PREFIXES[name]
        if fidx == 1 and flavour == "nccl" and level == "INFO":
            site["info_mask"] = re.sub(r"\s+", "", args[0])
        yield site


def sites_for(files, tag, flavour):
    out = []
    for path, text in files:
        if ONLY and not any(path.startswith(o) for o in ONLY):
            continue
        if HIPIFY:
            source = list(sites_in_file(path, text, tag, flavour)) if flavour != "absl" else []
            text = hipify(text)
        reader = absl_sites_in_file if flavour == "absl" else sites_in_file
        sites = list(reader(path, text, tag, flavour))
        if HIPIFY:
            # The source's own text of each site (the un-hipified file has the same sites at the
            # same lines, in the same order: hipify-perl renames words, it adds or removes no line).
            by_line = collections.defaultdict(list)
            for s in source:
                by_line[(s["line"], s["macro"])].append(s["format"])
            for s in sites:
                same = by_line.get((s["line"], s["macro"]))
                f = same.pop(0) if same else None
                if f is not None and f != s["format"]:
                    s["source_format"] = f
        out.extend(sites)
    return out


# ----------------------------------------------------------------------- hipify-perl's renaming
# RCCL compiles hipify-perl'd copies of its sources (ROCm/rccl CMakeLists.txt:558-590 @ 0cbce2a7:
# `hipify-perl -quiet-warnings SRC -o HIPIFY_DIR/SRC`), and hipify-perl renames CUDA names in the
# whole text, string literals included (its `subst` is `s/\bNAME\b/HIP/g` over the file): RCCL
# prints "hipIpcGetMemHandle failed" where its source says "cudaIpcGetMemHandle failed". With
# --hipify FILE the tool reads FILE's table (the `subst(...)` calls of `sub simpleSubstitutions`,
# the ones run without --roc / --experimental) and renames each file the same way before reading
# its sites, so each format is the text RCCL prints; `source_format` keeps the source's.
HIPIFY = []  # (pattern, replacement, type) in hipify-perl's order
HIPIFY_WORDS = {}  # identifier -> what hipify-perl's substitutions in order make of it


def read_hipify(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        raise SystemExit2(f"{path}: {e.strerror}")
    start = text.find("\nsub simpleSubstitutions {")
    end = text.find("\n}\n", start + 1)
    if start < 0 or end < 0:
        raise SystemExit2(f"{path}: no 'sub simpleSubstitutions {{' block: expected hipify-perl")
    body = text[start:end]
    rows = re.findall(r'^\s*subst\("((?:[^"\\]|\\.)+)",\s*"((?:[^"\\]|\\.)*)",\s*"(\w+)"\);',
                      body, re.M)
    if not rows:
        raise SystemExit2(f"{path}: no subst(\"CUDA\", \"HIP\", \"type\") lines in "
                          "simpleSubstitutions")
    HIPIFY[:] = [(a.replace("\\/", "/"), b.replace("\\/", "/"), t) for a, b, t in rows]
    # A word renamed in order: a later substitution renames what an earlier one wrote.
    firsts = collections.defaultdict(list)
    for i, (a, b, t) in enumerate(HIPIFY):
        if re.fullmatch(r"\w+", a):
            firsts[a].append(i)
    HIPIFY_WORDS.clear()
    for a in firsts:
        cur, i = a, -1
        while True:
            nxt = [j for j in firsts.get(cur, ()) if j > i]
            if not nxt:
                break
            i = nxt[0]
            cur = HIPIFY[i][1]
        if cur != a:
            HIPIFY_WORDS[a] = cur


def hipify(text):
    """The text hipify-perl writes for `text`: every renamed word (one pass over the words, the
    same as its substitutions one after another), then the patterns that are not one word
    (header names: `cuda_runtime_api.h`)."""
    text = re.sub(r"\b\w+\b", lambda m: HIPIFY_WORDS.get(m.group(0), m.group(0)), text)
    for a, b, t in HIPIFY:
        if re.fullmatch(r"\w+", a):
            continue
        guard = (r"(?<![!~`@#\$%\^&\*\-+=\[\]\(\)\{\}\.,\?'>])"
                 if t in ("include", "include_cuda_main_header") else "")
        text = re.sub(guard + r"\b" + a + r"\b", lambda m, b=b: b, text)
    return text


# Paths given with --only: the library's sources (RCCL's src/, not its tools/).
ONLY = []

# ---------------------------------------------------------------------- absl's LOG streams
# A plugin that logs with absl (Google's GPUDirect-TCPXO: LOG(WARNING) << ...) hands NCCL's logger
# each line through an absl::LogSink as "NET/FasTrak <time>: <text>" (tcpdirect_plugin/
# fastrak_offload/init.cc AbslLogSink): INFO at NCCL INFO, WARNING / ERROR / FATAL at NCCL WARN;
# FATAL then aborts. The sink's own format is kept before the message ("--sink-format").
ABSL_LOG_RE = re.compile(r"\b(P?LOG|LOG_EVERY_N|LOG_FIRST_N|LOG_EVERY_N_SEC|LOG_IF|P?LOG_IF)"
                         r"\s*\(\s*(INFO|WARNING|ERROR|FATAL|QFATAL|DFATAL)\b")
# A system call's failure the plugin returns as absl::ErrnoToStatus(errno, message): its API layer
# logs a returned status at WARNING through its status macros (GPUDirect-TCPXO's fastrak_plugin.cc
# `_.LogWarning()`, dxs/client/oss/status_macros.h: LOG(...) << status), which prints
# "<CODE>: <message>: <strerror>".
ABSL_ERRNO_RE = re.compile(r"\b(?:absl::)?(ErrnoToStatus)\s*\(")
ABSL_CHECK_RE = re.compile(r"\b(CHECK|QCHECK|CHECK_OK|QCHECK_OK|CHECK_(?:EQ|NE|LT|LE|GT|GE))\s*\(")
SINK_FORMAT = {"absl": ""}
ABSL_ERRNO_STATUSES = False  # --errno-statuses


def stream_parts(expr):
    """The operands of a `<<` chain at depth 0, as text."""
    return [x for x in split_top(expr, 0, "<<", 0)[0] if x]


def stream_format(parts):
    """A `<<` chain as a printf format: string literals as text (an absl::StrFormat's format as
    its own), anything else as %s. None when nothing in it is literal."""
    out, literal = [], False
    for x in parts:
        m = re.match(r"(?:absl::)?StrFormat\s*\(", x)
        if m:
            args, _ = split_args(x, m.end() - 1)
            fmt = join_format(args[0]) if args else None
            if fmt is not None:
                out.append(fmt)
                literal = True
                continue
        m = re.match(r"(?:absl::)?StrCat\s*\(", x)
        if m:
            args, _ = split_args(x, m.end() - 1)
            sub = stream_format(args or [])
            if sub is not None:
                out.append(sub)
                literal = True
                continue
        fmt = join_format(x)
        if fmt is not None and re.fullmatch(r'\s*("(?:[^"\\\n]|\\.)*"\s*)+', x):
            out.append(fmt.replace("%", "%%"))
            literal = True
        else:
            out.append("%s")
    return "".join(out) if literal else None


def absl_sites_in_file(path, text, tag, flavour):
    code, mask = blank_comments(text)
    sub = subsystem_of(path)
    sink = SINK_FORMAT.get("absl", "")
    for m in ABSL_ERRNO_RE.finditer(code) if ABSL_ERRNO_STATUSES else ():
        if not mask[m.start()]:
            continue
        args, end = split_args(code, m.end() - 1)
        if not args or len(args) < 2:
            continue
        msg = stream_format([args[1]])
        if msg is None:
            continue  # a message the caller passes in: nothing literal here
        fmt = sink + "%s: " + msg + ": %s"
        yield {
            "tag": tag, "file": path, "line": code.count("\n", 0, m.start()) + 1,
            "macro": m.group(1), "level": "WARN", "kind": "warn", "subsystem": sub,
            "format": fmt, "regex": format_regex(fmt), "returns": [], "in_macro": None,
            "function": enclosing_function(code, m.start()), "severity": "WARNING",
        }
    for rx, check in ((ABSL_LOG_RE, False), (ABSL_CHECK_RE, True)):
        for m in rx.finditer(code):
            if not mask[m.start()]:
                continue
            head = code[code.rfind("\n", 0, m.start()) + 1:m.start()]
            if re.search(r"#\s*define\s+$", head):
                continue  # a definition of the macro itself; a use inside a #define is a site
            open_at = code.index("(", m.start())
            args, end = split_args(code, open_at)
            if args is None:
                continue
            stop = code.find(";", end)
            if stop < 0:
                continue
            rest = code[end:stop].strip()
            parts = stream_parts(rest[2:]) if rest.startswith("<<") else []
            if check:
                # absl prints "Check failed: <condition> <message>" at FATAL and aborts
                body = stream_format(parts) if parts else ""
                fmt = "Check failed: %s" + ((" " + body) if body else "")
                level, sev = "WARN", "FATAL"
            else:
                sev = m.group(2)
                fmt = stream_format(parts)
                if fmt is None:
                    continue
                if m.group(1).startswith("PLOG"):
                    fmt += ": %s [%d]"  # absl's PLOG appends strerror(errno) and errno
                level = "INFO" if sev == "INFO" else "WARN"
            fmt = sink + fmt
            kind = site_kind(level, fmt)
            if kind is None:
                continue
            line = code.count("\n", 0, m.start()) + 1
            yield {
                "tag": tag, "file": path, "line": line, "macro": m.group(1), "level": level,
                "kind": kind, "subsystem": sub, "format": fmt, "regex": format_regex(fmt),
                "returns": returns_after(code, stop, enclosing_define(code, m.start())),
                "in_macro": enclosing_define(code, m.start()),
                "function": enclosing_function(code, m.start()), "severity": sev,
            }


LITERAL_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def log_prefixes(files, tag):
    """The printf formats of the log line heads a tag's logger writes: every string literal in
    code under src/ (not comments) holding "NCCL WARN " or "NCCL INFO " and a conversion
    (src/misc/utils.cc in 2.4, src/debug.cc later). Rows: (tag, level, file:line, format with C escapes decoded)."""
    rows = []
    for path, text in files:
        if not path.startswith("src/") or ("NCCL WARN" not in text and "NCCL INFO" not in text):
            continue  # contrib/ tools print their own heads; NCCL's logger is under src/
        code, _ = blank_comments(text)
        for m in LITERAL_RE.finditer(text):
            if code[m.start()] != '"':
                continue  # blanked: inside a comment
            lit = re.sub(r"\\(.)", lambda e: C_ESCAPES.get(e.group(1), e.group(1)), m.group(1))
            for level in ("WARN", "INFO"):
                if f"NCCL {level} " in lit and "%" in lit:
                    rows.append((tag, level, f"{path}:{text.count(chr(10), 0, m.start()) + 1}",
                                 lit))
    return rows


def distinct(per_tag):
    """One record per distinct message (level, kind, subsystem, format) across the tags, in order
    of first appearance: the first tag's function, macro and returned codes, the tags that print
    it and, per tag, every file:line that does (the shape tools/nccl_kb_coverage.py reads); for a
    call spread over lines, "closing" gives per tag the file:line of its closing parenthesis, the
    line older GCC and clang print."""
    out = {}
    for tag, sites in per_tag.items():
        for s in sites:
            key = (s["level"], s["kind"], s["subsystem"], s["format"])
            d = out.get(key)
            if d is None:
                d = out[key] = {k: s[k] for k in ("format", "function", "kind", "level", "macro",
                                                   "regex", "returns", "subsystem", "prefix",
                                                   "source_format")
                                if k in s}
                d["tags"], d["where"] = [], {}
            if tag not in d["where"]:
                d["tags"].append(tag)
                d["where"][tag] = []
            d["where"][tag].append(f"{s['file']}:{s['line']}")
            if "closing_line" in s:  # a call over several lines: the line other compilers print
                d.setdefault("closing", {}).setdefault(tag, []).append(
                    f"{s['file']}:{s['closing_line']}")
    return list(out.values())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--git-dir", help="a NCCL (or plugin) git directory")
    src.add_argument("--tree", help="a plain source directory (tag given by --tag, default 'tree')")
    ap.add_argument("--tag", action="append", default=[], help="tag to read (repeatable)")
    ap.add_argument("--all-tags", action="store_true",
                    help="every release tag vX.Y.Z-N from --since to the newest")
    ap.add_argument("--since", default="2.4", help="oldest release for --all-tags (default 2.4)")
    ap.add_argument("--plugin", choices=sorted(MACROS), default="nccl",
                    help="macro flavour: nccl (WARN/INFO), ofi (aws-ofi-nccl NCCL_OFI_WARN) or absl "
                    "(LOG(...) << streams, GPUDirect-TCPXO)")
    ap.add_argument("--define", action="append", default=[], metavar="NAME=TEXT",
                    help="a string macro's text, as the source #defines it (repeatable)")
    ap.add_argument("--only", action="append", default=[], metavar="PATH",
                    help="read only the files under this path of the tree (repeatable)")
    ap.add_argument("--sink-format", metavar="TEXT",
                    help="absl flavour: the text the plugin's log sink puts before each message, "
                    "as a printf format (GPUDirect-TCPXO: 'NET/FasTrak %%s: ')")
    ap.add_argument("--errno-statuses", action="store_true",
                    help="absl flavour: also list absl::ErrnoToStatus(errno, message) failures, "
                    "which the plugin logs at WARNING where its API returns them")
    ap.add_argument("--hipify", metavar="HIPIFY_PERL",
                    help="rename CUDA names as this hipify-perl script does before reading (RCCL "
                    "builds hipified copies of its sources, string literals included)")
    ap.add_argument("--jsonl", help="write every site as JSONL to this file")
    ap.add_argument("--distinct", metavar="FILE",
                    help="write one JSONL line per distinct message with its tags and file:line")
    ap.add_argument("--prefixes", metavar="FILE",
                    help="write the logger's line-head formats of each tag as TSV (NCCL only)")
    ap.add_argument("--summary", action="store_true",
                    help="print site counts per tag and per subsystem")
    a = ap.parse_args(argv)
    ONLY[:] = a.only
    SINK_FORMAT["absl"] = a.sink_format or ""
    global ABSL_ERRNO_STATUSES
    ABSL_ERRNO_STATUSES = a.errno_statuses
    for d in a.define:
        name, eq, text = d.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name):
            print(f"nccl_message_sites: --define {d!r}: expected NAME=TEXT", file=sys.stderr)
            return 2
        DEFINES[name] = text
    try:
        if a.hipify:
            read_hipify(a.hipify)
        if a.tree:
            if not os.path.isdir(a.tree):
                raise SystemExit2(f"{a.tree}: not a directory")
            tags = a.tag or ["tree"]
            per_tag = {t: sites_for(files_in_tree(a.tree), t, a.plugin) for t in tags[:1]}
        else:
            if not os.path.isdir(a.git_dir):
                raise SystemExit2(f"{a.git_dir}: not a directory")
            tags = list(a.tag)
            if a.all_tags:
                since = tuple(int(x) for x in a.since.split(".")[:2])
                tags += [t for t in release_tags(a.git_dir, since) if t not in tags]
            if not tags:
                raise SystemExit2("give --tag TAG or --all-tags")
            per_tag, prefixes = {}, []
            for t in tags:
                files = files_at_tag(a.git_dir, t)
                per_tag[t] = sites_for(files, t, a.plugin)
                if a.prefixes:
                    prefixes.extend(log_prefixes(files, t))
    except SystemExit2 as e:
        print(f"nccl_message_sites: {e}", file=sys.stderr)
        return 2
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for t in per_tag:
                for s in per_tag[t]:
                    f.write(json.dumps(s, sort_keys=True) + "\n")
    if a.prefixes and a.git_dir:
        with open(a.prefixes, "w", encoding="utf-8") as f:
            f.write("tag\tlevel\twhere\tformat (C escapes as written: \\n)\n")
            for row in prefixes:
                f.write("\t".join(row[:3]) + "\t" + row[3].replace("\n", "\\n") + "\n")
    if a.distinct:
        with open(a.distinct, "w", encoding="utf-8") as f:
            for d in distinct(per_tag):
                f.write(json.dumps(d, sort_keys=True) + "\n")
    if a.summary or not (a.jsonl or a.distinct):
        subs = sorted({s["subsystem"] for v in per_tag.values() for s in v})
        print("tag\ttotal\twarn\ttrail\tfailure\t" + "\t".join(subs))
        for t, v in per_tag.items():
            kinds = collections.Counter(s["kind"] for s in v)
            bysub = collections.Counter(s["subsystem"] for s in v)
            print(f"{t}\t{len(v)}\t{kinds['warn']}\t{kinds['trail']}\t{kinds['failure']}\t" +
                  "\t".join(str(bysub[x]) for x in subs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
