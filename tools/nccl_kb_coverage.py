#!/usr/bin/env python3
"""Coverage of NCCL's message sites by the knowledge base in data/nccl-kb/.

Reads the knowledge base (data/nccl-kb/*.yaml, format in data/nccl-kb/README.md) and the site
lists made by tools/nccl_message_sites.py --distinct (tests/data/nccl-sites/nccl-sites-v2.4-v2.17
.jsonl: the last patch tag of each minor release v2.4 .. v2.17; nccl-sites-v2.18-v2.30.jsonl: every
release tag v2.18.1-1 .. v2.30.7-1; nccl-sites-v2.31.0a16.jsonl: NVIDIA's dev branch at 2.31.0a16,
the newest source in a mirror here, as v2.31.0a16-1; one line per distinct message site across the
tags, with the tags that print it). Each site's
format is rendered as NCCL would print it (printf conversions replaced by sample values); a site
is covered when an entry's `match` finds it (and the entry's `level` and `versions`, when given,
allow it). Prints coverage per release tag, and, on request, the sites no entry covers.

It also checks the knowledge base itself: schema, unique ids, regexes in the dialect both Python
and the C++ reader (ECMAScript std::regex) accept, `when` keys from the known vocabulary, and that
every entry covers at least one site (an entry is justified by the source, never by a log alone).

    tools/nccl_kb_coverage.py                                  # table per tag
    tools/nccl_kb_coverage.py --missing ib-verbs               # uncovered sites of a subsystem
    tools/nccl_kb_coverage.py --kb /path/data/nccl-kb --min 90 # exit 1 below 90 % on any tag

Exit 0 when the knowledge base is valid (and --min holds), 1 when not, 2 on bad input (named).
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("nccl_kb_coverage: needs PyYAML (Debian: python3-yaml)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEVERITIES = {"error", "warning", "info"}
LEVELS = {"WARN", "INFO"}
WHEN_KEYS = {"link_layer", "net", "plugin", "env", "nccl", "driver", "multi_node", "log_has", "line_has",
             "framework",
             "mnnvl", "gdr", "rccl", "info_shown", "one_process", "container", "trail_call"}
ENTRY_KEYS = {"id", "match", "level", "kind", "versions", "in_file", "fixed_in", "what",
              "severity", "rank", "causes", "source", "doc", "info_failure", "consequence",
              "not_via", "local_socket"}
CAUSE_KEYS = {"cause", "when", "fix", "confirm", "severity"}
# Regex features outside the common subset of Python re and ECMAScript.
UNPORTABLE = [(r"\(\?<[=!]", "lookbehind"), (r"\(\?P?<\w", "named group"),
              (r"\(\?[aiLmsux]", "inline flag"), (r"\\[AZz]", "\\A/\\Z/\\z anchor"),
              (r"\(\?>", "atomic group"), (r"[*+?}]\+", "possessive quantifier")]


def vkey(tag):
    return tuple(int(x) for x in re.findall(r"\d+", tag)[:4])


def in_range(tag, spec):
    """spec: '>=2.19.3,<2.21' (NCCL versions, no 'v'); an empty spec admits every tag."""
    v = vkey(tag)[:3]
    for part in [p.strip() for p in (spec or "").split(",") if p.strip()]:
        m = re.fullmatch(r"(>=|<=|>|<|==)\s*(\d+(?:\.\d+){0,2})", part)
        if not m:
            raise ValueError(f"versions {spec!r}: expected e.g. '>=2.19,<2.21'")
        op, ref = m.group(1), tuple(int(x) for x in m.group(2).split("."))
        cmp = v[:len(ref)]
        ok = {">=": cmp >= ref, "<=": cmp <= ref, ">": cmp > ref, "<": cmp < ref,
              "==": cmp == ref}[op]
        if not ok:
            return False
    return True


CONV = re.compile(r"%(%|<PRI\w+>|[-+ #0]*(\d+|\*)?(\.(\d+|\*))?(hh|h|ll|l|z|j|t|L|q)?([diouxXcspfFeEgGaA]))")


def render(fmt):
    """A format string as NCCL prints it, with sample values for the conversions."""
    def sub(m):
        if m.group(1) == "%":
            return "%"
        if m.group(1).startswith("<PRI"):
            return "12"
        c = m.group(6)
        return {"s": "mlx5_0", "p": "0x7f12a0", "c": "x"}.get(
            c, "1.5" if c in "fFeEgGaA" else "12")
    return CONV.sub(sub, fmt)


# A failure trail ("%s:%d -> %d", "-> %d [Async thread]", src/include/checks.h) prints the caller's
# __FILE__:__LINE__ and the ncclResult_t it returns (src/nccl.h.in: 1..8 are failures): rendered
# once per code, with a file of src/ for the caller, so an entry for one code (or one file) can
# claim it. Connection lines ("Ring %02d : %d -> %d") are trails too but print no result code.
RESULT_TRAIL = re.compile(r"^(%s:%d )?-> %d( \(%s\)| \[[^\]]*\])?$")
TRAIL_FILE = "misc/socket.cc"


# A plugin's formats that are a trace of a choice, not a failure: left out of its coverage, counted
# apart, each with the reason (the INFO lines the site list keeps for a failure word); a third
# field limits the entry to those libraries' sites (their `plugin`s, blank-separated).
OUT_OF_SCOPE = [
    (re.compile(r"^NET/OFI Setting \S+ not supported\.$"),
     "INFO at init: an optional endpoint option (fi_setopt) the provider lacks; the plugin goes on "
     "without it (platform-aws.cpp)"),
    (re.compile(r"^NET/OFI Unable to obtain CPU cache line size from sysconf\. fallback"),
     "INFO: sysconf gave no cache line size and the plugin uses its built-in value"),
    (re.compile(r"^NET/OFI cuMemGetHandleForAddressRange failed with flags: \S+, retrying with no"),
     "INFO: the dma-buf export with flags failed and the plugin retries it without flags "
     "(nccl_ofi_cuda.cpp); the retry's own failure is a WARN"),
    (re.compile(r"^NET/OFI (Could not load libgdrapi\.so|Failed to open gdr handle)$"),
     "INFO: GDRCopy is optional; without it the plugin goes on without GDRCopy "
     "(nccl_ofi_gdrcopy.cpp)"),
    (re.compile(r"^Open of .* failed : .*\n?$"),
     "INFO: GPUDirect-TCPX could not read the NIC's PCI vendor to pick its thread and socket "
     "counts and uses 1 and 1 (src/connect.cc:180-188: 'handled silently')"),
    (re.compile(r"^\S+ slowness: detection is disabled, hence turning report off$"),
     "INFO: GPUDirect-TCPX's slowness report is off because its detection is (src/flags.cc:139-145)"),
    (re.compile(r"^Clique kernels disabled$"),
     "INFO: RCCL's clique kernels are off, the default (src/clique/CliqueManager.cc:134)",
     "rccl"),
    (re.compile(r"^\S+:\d+ ROCr failure '.*'$"),
     "INFO: a ROCr call RCCL checks with CUCHECKIGNORE, 'report failure but clear error and "
     "continue' (src/include/rocmwrap.h:43-50)",
     "rccl"),
    (re.compile(r"^RCCL force disabled same node P2P over network$"),
     "INFO: the trace of RCCL_P2P_NET_DISABLE (src/init.cc:1460-1466)",
     "rccl"),
    (re.compile(r"^MSCCL: Failed to find mscclScheduler symbol, using internal implementation$"),
     "INFO: an MSCCL_SCHEDULER library without the symbol; RCCL uses its internal scheduler "
     "(src/misc/msccl/msccl_lifecycle.cc:222-229)",
     "rccl msccl-executor-nccl"),
    (re.compile(r"^Unable to register signal handler for .*\n?$"),
     "INFO: RCCL's optional handler that prints a backtrace on a fatal signal; RCCL goes on "
     "without it (src/misc/signals.cc:75-84)",
     "rccl"),
    (re.compile(r"^Call to \S+ failed with error .* errno \d+$"),
     "INFO in RCCL: an optional verbs call the device does not support (ENOTSUP / EOPNOTSUPP); "
     "the caller goes on without it (src/misc/ibvwrap.cc:45-58, "
     "IBV_INT_CHECK_RET_ERRNO_OPTIONAL); its other failures are a WARN",
     "rccl msccl-executor-nccl"),
    (re.compile(r"^$"),
     "a format the site list cannot render: RCCL's NVMLCHECK pastes the call's name with the "
     "preprocessor (#name \"() failed: %s\", src/misc/nvmlwrap.cc:164-171)",
     "rccl msccl-executor-nccl"),
    (re.compile(r"^NET/FasTrak .*: DeregMr CUDA memory for comm \S+ with invalid handle "),
     "INFO: GPUDirect-TCPXO's deregistration of a buffer it never registered returns OK "
     "(tcpdirect_plugin/fastrak_offload/nccl_shim.cc:941-947)", "nccl-plugin-gpudirect-tcpxo"),
    (re.compile(r"^NET/FasTrak .*: GPUViz is disabled$"),
     "INFO: GPUDirect-TCPXO's telemetry is off, the default "
     "(tcpdirect_plugin/fastrak_offload/profiler_factory_gpuviz.cc:128)",
     "nccl-plugin-gpudirect-tcpxo"),
    (re.compile(r"^NET/OFI SKIP_NICS_WITHOUT_ACCEL_AT_SAME_PCI_LEVEL is set but .*filter disabled"),
     "INFO: the NIC filter found no NIC to keep and is switched off; all NICs are used "
     "(nccl_ofi_topo.cpp)"),
    (re.compile(r"^Open of \S+ failed : .*\n$"),
     "INFO: NCCL Fast Socket could not read the NIC's PCI vendor to pick its thread and socket "
     "counts and uses 1 and 1 (net_fastsocket.cc:591-595 @ b3ff1c6: \"handled silently\")",
     "nccl-fastsocket"),
    (re.compile(r"^No free space for recv task$"),
     "unreachable: NCCL Fast Socket's WARN follows a `break;` (net_fastsocket.cc:1418-1421 @ "
     "b3ff1c6)", "nccl-fastsocket"),
]


# What a plugin's WARN macro hands NCCL's logger where NCCL's own prints __FILE__: aws-ofi-nccl
# its __PRETTY_FUNCTION__ (include/nccl_ofi_log.h), the HPC-X plugin __FILE__ as NCCL does
# (nccl-rdma-sharp-plugins include/debug.h: pluginLogFunction(NCCL_LOG_WARN, NCCL_ALL, __FILE__,
# __LINE__, ...)); RCCL and msccl-executor-nccl, forks of NCCL, print NCCL's own head; GPUDirect-TCPXO's absl sink hands
# it the source file absl records (tcpdirect_plugin/fastrak_offload/init.cc AbslLogSink).
# NCCL Fast Socket's first public commit logged through NCCL's own debug.h (__FILE__); later ones
# through its utilities.h (__PRETTY_FUNCTION__): a key may name one tag ("plugin tag").
PLUGIN_WARN_PRINTS = {"nccl-rdma-sharp-plugins": "file", "rccl": "file",
                      "msccl-executor-nccl": "file", "nccl-plugin-gpudirect-tcpxo": "file",
                      "nccl-fastsocket 534c115": "file"}


# The plugin a site list is from, by the text its macros print first: its tags are labelled with
# it ("aws-ofi-nccl v1.21.1") so they never read as NCCL releases.
PLUGIN_OF_PREFIX = {"NET/OFI ": "aws-ofi-nccl"}


# NCCL sites no run can print, each with the reason read from the source: left out of coverage.
UNREACHABLE = [
    (re.compile(r"^Could not map \S+\n$"), "ncclShmSetup",
     "2.12 .. 2.15 src/misc/shmutils.cc:46 tests `*ptr == NULL` after mmap, which returns "
     "MAP_FAILED on failure: a failed map never prints it (it faults in the memset after)"),
]


def out_of_scope(site):
    """The reason a plugin site (or an unreachable NCCL site) is left out of coverage, or None."""
    if not plugin_site(site):
        for rx, function, why in UNREACHABLE:
            if site.get("function") == function and rx.search(site["_text"]):
                return why
        return None
    for rx, why, *only in OUT_OF_SCOPE:
        if only and site.get("plugin") not in only[0].split():
            continue  # a trace of that library's code, not of another's same text
        if rx.search(site["_text"]):
            return why
    return None


def plugin_site(site):
    """A net plugin's site (aws-ofi-nccl: its tags are the plugin's, v1.x), not NCCL's own."""
    return "prefix" in site or not all(t.startswith("v2.") for t in site["tags"])


def renderings(site):
    if site.get("prefix"):  # "NET/OFI " before the plugin's format (NCCL_OFI_WARN)
        return [site["prefix"] + render(site["format"] or "")]
    fmt = site["format"] or ""
    if site["kind"] == "trail" and RESULT_TRAIL.match(fmt):
        head = fmt.replace("%s:%d ", TRAIL_FILE + ":12 ", 1)
        return [render(head.replace("-> %d", f"-> {code}", 1)) for code in range(1, 9)]
    return [render(fmt)]


# The HIP names RCCL prints where NCCL's source has CUDA's (data/nccl-kb/hip-names.txt, written by
# tools/nccl_hip_names.py): an entry reads RCCL's line in NCCL's spelling, as the C++ reader does
# (src/knowledge/nccl_hip_names.h).
HIP_NAMES = {}


def read_hip_names(kb_dir):
    """0, or 2 on a file that cannot be read (named); a knowledge base without the file (a test's
    own) has no HIP names."""
    path = os.path.join(kb_dir, "hip-names.txt")
    if not os.path.exists(path):
        return 0
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    hip, cuda = line.rstrip("\n").split("\t")[:2]
                    HIP_NAMES[hip] = cuda
    except (OSError, ValueError) as x:
        print(f"{path}: {x}", file=sys.stderr)
        return 2
    return 0


def spellings(texts):
    """Each text as printed and, where it holds HIP names, in NCCL's spelling: an entry written
    for either reads it."""
    out = list(texts)
    for t in texts:
        if "hip" in t:
            spelled = re.sub(r"\w+", lambda m: HIP_NAMES.get(m.group(0), m.group(0)), t)
            if spelled != t:
                out.append(spelled)
    return out


def literal_chars(rx):
    """Characters an entry's regex requires literally (rough: text outside classes/escapes)."""
    s = re.sub(r"\\[dDsSwWbB]|\[[^\]]*\]|[.*+?()|{}^$]|\{\d+(,\d*)?\}", "", rx)
    return len(re.sub(r"\\(.)", r"\1", s))


def load_kb(kb_dir, errors):
    entries = []
    ids = set()
    files = sorted(glob.glob(os.path.join(kb_dir, "*.yaml")))
    if not files:
        errors.append(f"{kb_dir}: no *.yaml files")
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                doc = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            errors.append(f"{path}: {e}")
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list) or \
                not isinstance(doc.get("subsystem"), str):
            errors.append(f"{path}: expected a map with 'subsystem' (text) and 'entries' (list)")
            continue
        for i, e in enumerate(doc["entries"]):
            where = f"{os.path.basename(path)}: entry {i + 1}"
            if not isinstance(e, dict):
                errors.append(f"{where}: expected a map")
                continue
            where = f"{os.path.basename(path)}: {e.get('id', f'entry {i + 1}')}"
            for k in set(e) - ENTRY_KEYS:
                errors.append(f"{where}: unknown key {k!r}")
            for k in ("id", "match", "what", "severity", "causes", "source"):
                if k not in e:
                    errors.append(f"{where}: missing {k!r}")
            if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", str(e.get("id", ""))):
                errors.append(f"{where}: id must be kebab-case")
            if e.get("id") in ids:
                errors.append(f"{where}: duplicate id")
            ids.add(e.get("id"))
            if e.get("severity") not in SEVERITIES:
                errors.append(f"{where}: severity must be one of {sorted(SEVERITIES)}")
            if "level" in e and e["level"] not in LEVELS:
                errors.append(f"{where}: level must be WARN or INFO")
            if "info_failure" in e and not (isinstance(e["info_failure"], str) and
                                            e["info_failure"].strip()):
                errors.append(f"{where}: info_failure must be text (why the INFO is a failure)")
            if "rank" in e and not (isinstance(e["rank"], int) and 0 <= e["rank"] <= 100):
                errors.append(f"{where}: rank must be an integer 0..100")
            for flag in ("consequence", "local_socket"):
                if flag in e and not isinstance(e[flag], bool):
                    errors.append(f"{where}: {flag} must be true or false")
            rx = str(e.get("match", ""))
            for pat, name in UNPORTABLE:
                if re.search(pat, rx):
                    errors.append(f"{where}: match uses a {name} (not portable to std::regex)")
            try:
                e["_re"] = re.compile(rx)
            except re.error as x:
                errors.append(f"{where}: match does not compile: {x}")
                continue
            if e.get("kind") != "trail" and literal_chars(rx) < 8:
                errors.append(f"{where}: match must hold at least 8 literal characters")
            if e.get("kind") not in (None, "trail", "passthrough"):
                errors.append(f"{where}: kind must be 'trail' or 'passthrough'")
            try:
                in_range("v2.18.1-1", e.get("versions"))
            except ValueError as x:
                errors.append(f"{where}: {x}")
            if doc.get("subsystem") == "fixed-in" and "fixed_in" not in e:
                errors.append(f"{where}: an entry of fixed-in.yaml needs fixed_in (the release "
                              "that fixed the bug)")
            if "fixed_in" in e:
                if not re.fullmatch(r"\d+\.\d+(\.\d+)?", str(e["fixed_in"])):
                    errors.append(f"{where}: fixed_in must be a release such as '2.19.4'")
                elif not re.search(r"release note|release-notes|git show v|change log of v",
                                   str(e.get("source"))):
                    # A release whose commit carries no note (2.18.6-1): its change log.
                    errors.append(f"{where}: a fixed_in entry's source must name the release note")
                elif not re.fullmatch(r">=\s*\d+(\.\d+){0,2}", str(e.get("versions", ""))):
                    errors.append(f"{where}: a fixed_in entry needs versions '>=X' (the first "
                                  "release with the bug)")
                elif not in_range("v" + str(e["versions"]).lstrip(">= "),
                                  "<" + str(e["fixed_in"])):
                    errors.append(f"{where}: versions must start before fixed_in")
            if "in_file" in e:
                try:
                    re.compile(str(e["in_file"]))
                except re.error as x:
                    errors.append(f"{where}: in_file does not compile: {x}")
            if "not_via" in e:
                if e.get("kind") != "trail":
                    errors.append(f"{where}: not_via is for trail entries (kind: trail) only")
                try:
                    re.compile(str(e["not_via"]))
                except re.error as x:
                    errors.append(f"{where}: not_via does not compile: {x}")
            causes = e.get("causes")
            if not isinstance(causes, list) or not causes:
                errors.append(f"{where}: causes must be a non-empty list")
                causes = []
            unconditional = None  # the first cause without `when`: it always holds
            for j, c in enumerate(causes):
                if not isinstance(c, dict):
                    errors.append(f"{where}: cause {j + 1} must be a map")
                    continue
                # The reader takes the first cause whose `when` holds: a `when` after a cause
                # without one can never decide (put the conditional cause first). A `when` of
                # releases alone (`nccl`) there is allowed: it decides nothing, but a log whose
                # release it excludes does not list the cause among the others (ruled_out in
                # src/knowledge/nccl_kb_read.cpp).
                if c.get("when") and set(c["when"]) != {"nccl"} and unconditional is not None:
                    errors.append(f"{where}: cause {j + 1} has `when` after cause "
                                  f"{unconditional + 1}, which has none: it is never chosen")
                if not c.get("when") and unconditional is None:
                    unconditional = j
                for k in set(c) - CAUSE_KEYS:
                    errors.append(f"{where}: cause {j + 1}: unknown key {k!r}")
                for k in ("cause", "fix", "confirm"):
                    if not str(c.get(k, "")).strip():
                        errors.append(f"{where}: cause {j + 1}: missing {k!r}")
                if "severity" in c and (c["severity"] not in ("error", "warning", "info")
                                        or not c.get("when")):
                    errors.append(f"{where}: cause {j + 1}: severity must be error, warning or "
                                  f"info, on a cause with a `when`")
                w = c.get("when", {})
                if not isinstance(w, dict):
                    errors.append(f"{where}: cause {j + 1}: when must be a map")
                    continue
                for k in set(w) - WHEN_KEYS:
                    errors.append(f"{where}: cause {j + 1}: unknown when-key {k!r} "
                                  f"(known: {', '.join(sorted(WHEN_KEYS))})")
            e["_file"] = os.path.basename(path)
            e["_subsystem"] = doc["subsystem"]
            entries.append(e)
    return entries


def covers(e, site, tag):
    return reads(e, site) and at_tag(e, site, tag)


def reads(e, site):
    """The entry reads the site's text at some release (the tag's own conditions aside)."""
    if e.get("level") and e["level"] != site["level"]:
        return False
    if plugin_site(site):
        # A plugin's own text: entries justified by the plugin's source (passthrough ones too,
        # which is what NCCL passes through from it) cover it; `versions` are NCCL's releases.
        # A plugin that copies NCCL's NCCLCHECK prints NCCL's own "%s:%d -> %d" trail
        # (nccl-rdma-sharp-plugins include/core.h): NCCL's trail entries read it.
        if e.get("fixed_in") and site.get("fork") != "nccl":
            # a bug of NCCL's releases, fixed in one: not a plugin's copy of it, nor RCCL's
            # (RCCL prints its own version, and NCCL's release notes do not say whether it has
            # the bug); a fork that prints NCCL's version line (msccl-executor-nccl) is NCCL at
            # the release it is based on
            return False
        if site["kind"] == "trail" and RESULT_TRAIL.match(site["format"] or ""):
            return e.get("kind") == "trail" and any(e["_re"].search(t) for t in site["_spelled"])
        return e.get("kind") != "trail" and any(e["_re"].search(t) for t in site["_spelled"])
    if e.get("kind") == "passthrough":
        return False
    if (e.get("kind") == "trail") != (site["kind"] == "trail"):
        return False
    return any(e["_re"].search(t) for t in site["_spelled"])


def at_tag(e, site, tag):
    """The entry's release conditions admit the tag (NCCL sites, and a fork's by the NCCL release
    its tag is based on: its `nccl`)."""
    if plugin_site(site):
        base = site.get("nccl", {}).get(tag)
        return not base or (in_range(base, e.get("versions")) and not (
            e.get("fixed_in") and not in_range(base, "<" + str(e["fixed_in"]))))
    if not in_range(tag, e.get("versions")):
        return False
    # A fixed bug is printed by the releases before the fix. `in_file` (the caller's file of a
    # shared macro such as CUCHECK) is not known from the site list: the message decides.
    return not (e.get("fixed_in") and not in_range(tag, "<" + str(e["fixed_in"])))


# A citation in `info_failure`: "src/enqueue.cc:52 @ v2.25.1-1" (the site, where a tag prints it).
CITATION = re.compile(r"([\w.+-]+(?:/[\w.+-]+)+\.(?:cc|cu|cpp|c|h|hpp|in)):(\d+) @ (v\d+\.\d+\.\d+-\d+)")


def info_only_sites(sites):
    """Indexes of the sites whose format is printed at INFO only (at every tag and place that has
    it), trace formats left out of coverage aside."""
    levels = collections.defaultdict(set)
    for s in sites:
        levels[(s.get("prefix"), s["format"])].add(s["level"])
    return {i for i, s in enumerate(sites) if s["level"] == "INFO" and not out_of_scope(s)
            and levels[(s.get("prefix"), s["format"])] == {"INFO"}}


def result_trail(site):
    """A failure chain ("%s:%d -> %d", src/include/checks.h): NCCL returns the code it prints."""
    return site["kind"] == "trail" and bool(RESULT_TRAIL.match(site["format"] or ""))


def check_levels(entries, sites, readers, errors):
    """An entry without `level` reads WARN and INFO lines alike. A format NCCL prints only at INFO
    is mostly a trace of a choice or a fallback the code takes ("retrying", "falling back to",
    "Continue without"): read at warning or error severity it turns a healthy log into a failure.
    An entry (warning or error) that reads such a site either has `level: WARN` (an info entry may
    read the INFO form) or says in `info_failure` why the INFO reports a failure - a failure chain
    on the way out, an error returned to the caller, a fault NCCL then works around - citing the
    site as "file:line @ tag". Every file of an INFO-only site it reads is cited (a new site in
    another file asks for a new reason); every citation names an INFO-only site it reads. For a
    plugin's entries only `level` will do. An entry with `level: INFO` that warns needs the
    reason as well."""
    only = info_only_sites(sites)
    read = collections.defaultdict(list)
    for i in sorted(only):
        s = sites[i]
        for e in readers[i]:
            if e.get("severity") == "info" or e.get("kind") == "passthrough" and \
                    not plugin_site(s):
                continue
            if plugin_site(s):  # the plugin's own entries, passthrough ones included
                if s.get("nccl") and e.get("kind") != "passthrough":
                    continue  # a fork's copy of NCCL's line: NCCL's own site list checks it
                if not e.get("level"):
                    errors.append(f"{e['_file']}: {e['id']}: no level, and its match reads the "
                                  f"INFO-only site {s['where'][s['tags'][-1]][0]} "
                                  f"({s['_text'][:70]!r}): give the entry `level: WARN` or split it")
                continue
            if e.get("kind") != "trail":  # trail entries read failure chains by design
                read[e["id"]].append(s)
    for e in entries:
        why, ss = e.get("info_failure"), read.get(e["id"], [])
        where = f"{e['_file']}: {e['id']}"
        if why is None:
            for s in ss:
                what = (f"{where}: {'level INFO' if e.get('level') else 'no level'}, and its "
                        f"match reads the INFO-only site {s['where'][s['tags'][-1]][0]} "
                        f"({s['_text'][:70]!r})")
                errors.append(what + ": where NCCL goes on normally give the entry `level: "
                              "WARN` (an info entry may read the INFO form); where the INFO "
                              "reports a failure say why in `info_failure` (file:line @ tag)")
            continue
        if not ss:
            errors.append(f"{where}: info_failure, but its match reads no INFO-only site")
            continue
        cites = CITATION.findall(str(why))
        if not cites:
            errors.append(f"{where}: info_failure must cite the INFO sites as 'file:line @ tag'")
            continue
        for f, line, tag in cites:
            if not any(f"{f}:{line}" in s["where"].get(tag, []) for s in ss):
                errors.append(f"{where}: info_failure cites {f}:{line} @ {tag}, which is not an "
                              "INFO-only site the entry reads")
        files = {f for f, _, _ in cites}
        for s in ss:
            if not {w.partition(":")[0] for ws in s["where"].values() for w in ws} & files:
                errors.append(f"{where}: reads the INFO-only site {s['where'][s['tags'][-1]][0]} "
                              f"({s['_text'][:70]!r}), a file info_failure does not cite")


def info_failure_readers(e):
    """An entry whose reading of an INFO line is a recorded failure."""
    return e.get("severity") != "info" and (e.get("info_failure") or e.get("level") == "INFO")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", default=os.path.join(ROOT, "data", "nccl-kb"))
    ap.add_argument("--sites", action="append", help="a site list (repeatable; default: "
                    "tests/data/nccl-sites/nccl-sites-v2.4-v2.17.jsonl, "
                    "nccl-sites-v2.18-v2.30.jsonl, nccl-sites-v2.31.0a16.jsonl and the plugins')")
    ap.add_argument("--missing", metavar="SUBSYSTEM", help="list uncovered sites ('all' for all)")
    ap.add_argument("--tag", help="with --missing: only sites this tag prints (default newest)")
    ap.add_argument("--min", type=float,
                    help="exit 1 when an NCCL release's coverage is below this %%")
    ap.add_argument("--plugin-min", type=float,
                    help="exit 1 when a net plugin tag's coverage is below this %%")
    ap.add_argument("--json", action="store_true", help="per-tag coverage as JSON")
    ap.add_argument("--cases", action="store_true",
                    help="one JSON line per covered site, tag and rendering: the text, where "
                    "NCCL prints it, and the entries that cover it (for the C++ reader's test)")
    ap.add_argument("--info-cases", action="store_true",
                    help="one JSON line per INFO-only site, tag and rendering, with 'failure': "
                    "whether the knowledge base reads it as a failure (a recorded info_failure, a "
                    "level INFO entry that warns, a failure chain); the rest are healthy lines "
                    "(for the C++ test that they yield no warning)")
    a = ap.parse_args()
    a.sites = a.sites or [os.path.join(ROOT, "tests", "data", "nccl-sites", name) for name in
                          ("nccl-sites-v2.4-v2.17.jsonl", "nccl-sites-v2.18-v2.30.jsonl",
                           "nccl-sites-v2.31.0a16.jsonl",
                           "aws-ofi-nccl-sites-v1.14-v1.21.jsonl",
                           "libfabric-efa-sites-v1.18-v2.6.jsonl",
                           "nccl-rdma-sharp-plugins-sites-v2.1-v2.7.jsonl",
                           "nccl-plugin-gpudirecttcpx-sites-v3.1.9.jsonl",
                           "nccl-plugin-gpudirect-tcpxo-sites-v1.0.12-v1.0.17.jsonl",
                           "nccl-fastsocket-sites-534c115-b3ff1c6.jsonl",
                           "rccl-sites-rocm-5.7-6.2-develop.jsonl",
                           "msccl-executor-nccl-sites-v2.17-c6f6b36.jsonl")]

    sites = []
    if read_hip_names(a.kb):
        return 2
    for path in a.sites:
        rc = read_sites(path, sites)
        if rc:
            return rc
    return report(a, sites)


def read_sites(path, sites):
    """Appends the sites of one list to `sites`; 0, or 2 on bad input (named)."""
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                try:
                    s = json.loads(line)
                    # A site whose format is not a literal (a variable) renders as "": no entry
                    # can claim it, and it still counts against coverage.
                    # a plugin's or library's site: "plugin" names it (libfabric's, no prefix)
                    if s.get("plugin") or s.get("prefix") in PLUGIN_OF_PREFIX:
                        name = s.get("plugin") or PLUGIN_OF_PREFIX[s["prefix"]]
                        s["tags"] = [f"{name} {t}" for t in s["tags"]]
                        s["where"] = {f"{name} {t}": w for t, w in s["where"].items()}
                        if "nccl" in s:  # a fork's tags: the NCCL release each is based on
                            s["nccl"] = {f"{name} {t}": v for t, v in s["nccl"].items()}
                    s["_texts"] = renderings(s)
                    s["_spelled"] = spellings(s["_texts"])
                    s["_text"] = s["_texts"][0]
                    # The site list calls every INFO with "->" a trail; connection and topology
                    # lines ("Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", "Tree ...", "Ring ...")
                    # are not failures: the log reader reads them as connections, not here.
                    if s["kind"] == "trail" and \
                            not re.match(r"(%s:%d )?-> %d", s["format"] or ""):
                        continue
                    sites.append(s)
                except (ValueError, KeyError, TypeError) as x:
                    print(f"{path}:{n}: expected a site (JSON with 'format'): {x}",
                          file=sys.stderr)
                    return 2
    except OSError as x:
        print(f"{path}: {x}", file=sys.stderr)
        return 2
    return 0


def check_fixed_in_review(kb, entries, errors):
    """Each fixed_in entry is named in the review of NCCL's release notes (docs/nccl-fixed-in.md
    beside the knowledge base's repository), so the table says which note it comes from."""
    fixed = [e for e in entries if e.get("fixed_in")]
    if not fixed:
        return
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(kb))), "docs",
                        "nccl-fixed-in.md")
    try:
        with open(path, encoding="utf-8") as f:
            review = f.read()
    except OSError as x:
        errors.append(f"{path}: the review of the release notes is missing ({x.strerror})")
        return
    for e in fixed:
        if f"**entry** `{e['id']}`" not in review:
            errors.append(f"{e['_file']}: {e['id']}: not named as an entry in the release-note "
                          f"review ({os.path.relpath(path, ROOT)})")


def report(a, sites):
    errors = []
    entries = load_kb(a.kb, errors)
    # NCCL's releases first, then each plugin's tags ("aws-ofi-nccl v1.21.1"), oldest first
    tags = sorted({t for s in sites for t in s["tags"]},
                  key=lambda t: (" " in t, t.split()[0] if " " in t else "", vkey(t)))
    used = collections.Counter()
    subsystems_of = collections.defaultdict(set)
    table = []
    covered_by = {}
    scope_out = collections.Counter()
    readers = [[e for e in entries if reads(e, s)] for s in sites]  # the regexes run once a site
    for tag in tags:
        total = cov = 0
        for i, s in enumerate(sites):
            if tag not in s["tags"]:
                continue
            if out_of_scope(s):
                scope_out[tag] += 1
                continue
            total += 1
            hit = [e for e in readers[i] if at_tag(e, s, tag)]
            if hit:
                cov += 1
                covered_by.setdefault(i, set()).update(e["id"] for e in hit)
                for e in hit:
                    used[e["id"]] += 0
                    # a plugin's subsystems are its source areas (ofi-rdma, gin), which an entry
                    # about what failed (memory, registration) spans by design
                    if not plugin_site(s):
                        subsystems_of[e["id"]].add(s["subsystem"])
        table.append((tag, total, cov, scope_out[tag]))
    for ids in covered_by.values():
        for i in ids:
            used[i] += 1
    check_levels(entries, sites, readers, errors)
    check_fixed_in_review(a.kb, entries, errors)
    for e in entries:
        if e.get("kind") == "passthrough":
            continue  # CUDA/driver/framework text NCCL passes through: justified by its own source
        if e["id"] not in used and e.get("fixed_in") and not any(
                in_range(t, e.get("versions")) and in_range(t, "<" + str(e["fixed_in"]))
                for s in sites if not plugin_site(s) for t in s["tags"]) and any(
                e in r for r in readers):
            # Before 2.18 the site lists keep only the last patch tag of each minor release, so
            # a bug fixed inside a minor (2.4.2 .. 2.4.5, 2.7.3 .. 2.7.6) has no listed tag: the
            # message at a listed tag (the same site, printed before or in those releases)
            # justifies it, with the affected tags cited in its source.
            pass
        elif e["id"] not in used:
            errors.append(f"{e['_file']}: {e['id']}: matches no message site of any release "
                          "(an entry must be justified by a site in NCCL's source)")
        elif len(subsystems_of[e["id"]]) > 2:
            print(f"note: {e['id']} matches sites of {len(subsystems_of[e['id']])} subsystems "
                  f"({', '.join(sorted(subsystems_of[e['id']]))}): is it too broad?",
                  file=sys.stderr)

    if a.cases or a.info_cases:
        only = info_only_sites(sites) if a.info_cases else set()
        for i, s in enumerate(sites):
            if not (readers[i] if a.cases else i in only):
                continue
            for tag in s["tags"]:
                file, _, line = s["where"][tag][0].partition(":")
                printed = f"{file[4:] if file.startswith('src/') else file}:{line or 0}"
                for text in s["_texts"]:
                    if plugin_site(s):
                        # NCCL's logger joins no lines of a plugin's text: the WARN line holds the
                        # first, the rest are lines of their own (the EFA security-group banner)
                        text = text.split("\n")[0]
                    # Here the file NCCL prints is known: an in_file entry reads only its own.
                    one = dict(s, _texts=[text], _spelled=spellings([text]))
                    hit = [e for e in readers[i] if covers(e, one, tag)
                           and (not e.get("in_file") or re.search(e["in_file"], printed))]
                    case = {"tag": tag, "level": s["level"], "kind": s["kind"],
                            "file": file[4:] if file.startswith("src/") else file,
                            "line": int(line or 0), "func": s.get("function") or "",
                            "text": text, "ids": [e["id"] for e in hit]}
                    if plugin_site(s):  # printed through NCCL's logger by the plugin
                        case["plugin"] = tag.split()[0] if " " in tag else "plugin"
                        # what the plugin's WARN hands NCCL's logger where NCCL puts __FILE__
                        case["printed"] = PLUGIN_WARN_PRINTS.get(
                            tag, PLUGIN_WARN_PRINTS.get(case["plugin"], "function"))
                        if s.get("nccl", {}).get(tag):  # a fork: the release it prints
                            case["nccl"] = s["nccl"][tag]
                            case["fork"] = s.get("fork", "rccl")
                    if a.info_cases:
                        # a failure the knowledge base records as one, or NCCL's failure chain
                        case["failure"] = result_trail(s) or any(
                            info_failure_readers(e) for e in hit)
                    elif not hit:
                        continue
                    print(json.dumps(case))
    elif a.json:
        print(json.dumps([{"tag": t, "sites": n, "covered": c,
                           "percent": round(100.0 * c / n, 1) if n else 0.0}
                          for t, n, c, _ in table], indent=1))
    elif a.missing:
        tag = a.tag or tags[-1]
        for i, s in enumerate(sites):
            if tag in s["tags"] and i not in covered_by and \
                    a.missing in ("all", s["subsystem"]):
                print(f"{s['subsystem']}\t{s['kind']}\t{s['level']}\t{s['where'][tag][0]}\t"
                      f"{s['_text']!r}")
    else:
        print(f"knowledge base: {len(entries)} entries; sites: {len(sites)} distinct "
              f"across {len(tags)} tags")
        print("tag\tsites\tcovered\tpercent\tout_of_scope")
        for t, n, c, o in table:
            print(f"{t}\t{n}\t{c}\t{100.0 * c / n if n else 0:.1f}\t{o}")
    for x in errors:
        print(f"error: {x}", file=sys.stderr)
    if errors:
        return 1
    for floor, plugin, what in ((a.min, False, "NCCL release"), (a.plugin_min, True, "plugin tag")):
        if floor is not None and any(n and 100.0 * c / n < floor and (" " in t) == plugin
                                     for t, n, c, _ in table):
            print(f"coverage below {floor} % on at least one {what}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
