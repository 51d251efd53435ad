#!/usr/bin/env python3
"""The Debian package, end to end, without changing this machine.

Builds the .deb with cpack, reads its control fields (Depends must come from dpkg-shlibdeps),
installs it with the real dpkg into a sandbox root (--root, an empty admin dir), runs the
installed binary, and checks that the installed man page and bash / zsh completions cover every
command and every option. That list is read from each command's --help (CLI11's own formatter),
not from the generators under test, so anything they miss fails here.

usage: package_test.py --build BUILD_DIR --source SOURCE_DIR
"""
import argparse
import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FAILURES = []


def fail(message):
    FAILURES.append(message)
    print(f"FAIL: {message}", flush=True)


def report_ok(message, failures_before):
    """'ok' only when the check added no failure."""
    if len(FAILURES) == failures_before:
        print(f"ok: {message}", flush=True)


def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


def must(cmd, **kwargs):
    r = run(cmd, **kwargs)
    if r.returncode != 0:
        print(f"FATAL: {' '.join(map(str, cmd))} exited {r.returncode}\n{r.stdout}\n{r.stderr}")
        sys.exit(1)
    return r


def help_sections(text):
    """CLI11 help: 'Title:' lines open a section of '  name ...' rows; a blank line closes it."""
    sections, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z][A-Za-z ]*):$", line)
        if m:
            current = sections.setdefault(m.group(1), [])
        elif not line.strip():
            current = None
        elif current is not None and line.startswith("  ") and line[2] != " ":
            current.append(line.split()[0])  # continuation lines are indented further
    return sections


def cli_tree(binary):
    """command path (tuple) -> {'subcommands': [...], 'options': [...]} from --help alone."""
    tree, todo = {}, [()]
    while todo:
        path = todo.pop(0)
        r = must([binary, *path, "--help"])
        s = help_sections(r.stdout)
        subs = s.get("Subcommands", [])
        options = [n for cell in s.get("Options", []) for n in cell.split(",") if n.startswith("-")]
        if not options:
            print(f"FATAL: no options parsed from `{' '.join(path)} --help`:\n{r.stdout}")
            sys.exit(1)
        tree[path] = {"subcommands": subs, "options": options}
        todo += [path + (sub,) for sub in subs]
    return tree


def check_control(deb, version):
    info = must(["dpkg-deb", "-I", deb]).stdout
    fields = dict(re.findall(r"^ (\w[\w-]*): (.*)$", info, re.M))
    if fields.get("Package") != "trainready":
        fail(f"Package field: {fields.get('Package')!r}")
    if fields.get("Version") != version:
        fail(f"Version field {fields.get('Version')!r}, the binary says {version!r}")
    depends = fields.get("Depends", "")
    # Library package names as dpkg-shlibdeps writes them, with a version floor from the symbols.
    # libcurl, libxml2 and libmicrohttpd are the network plugin's (shlibdeps reads it too).
    for lib in ("libc6 (>=", "libcurl", "libxml2", "libmicrohttpd", "libsimdjson14",
                "libstdc++6 (>="):
        if lib not in depends:
            fail(f"Depends lacks {lib!r} (shlibdeps not run?): {depends!r}")
    if "libopenmpi" in depends or "libmpi" in depends:
        fail(f"trainready must install without Open MPI, but Depends names it: {depends!r}")
    print(f"ok: control: Package trainready, Version {version}, Depends: {depends}")


def check_mpi_control(deb, version):
    """The plugin's package carries Open MPI's dependency; the tool's never does."""
    info = must(["dpkg-deb", "-I", deb]).stdout
    fields = dict(re.findall(r"^ (\w[\w-]*): (.*)$", info, re.M))
    depends = fields.get("Depends", "")
    if fields.get("Package") != "trainready-mpi":
        fail(f"plugin package name {fields.get('Package')!r}")
    if "libopenmpi3" not in depends or f"trainready (= {version})" not in depends:
        fail(f"trainready-mpi Depends should name libopenmpi3 and trainready (= {version}): "
             f"{depends!r}")
    listing = must(["dpkg-deb", "-c", deb]).stdout
    if "/trainready/libtrainready-mpi.so" not in listing:
        fail("trainready-mpi does not hold libtrainready-mpi.so")
    print(f"ok: trainready-mpi: Depends: {depends}")


def check_contents(deb, source):
    listing = must(["dpkg-deb", "-c", deb]).stdout
    paths = {line.split()[-1].lstrip(".") for line in listing.splitlines()}
    expected = {
        "/usr/bin/trainready",
        "/usr/share/man/man1/trainready.1.gz",
        "/usr/share/bash-completion/completions/trainready",
        "/usr/share/zsh/vendor-completions/_trainready",
    }
    for name in sorted(os.listdir(os.path.join(source, "docs"))):
        if name.endswith(".md"):
            expected.add(f"/usr/share/doc/trainready/{name}")
    for name in sorted(os.listdir(os.path.join(source, "docs", "rules"))):
        if name.endswith(".md"):
            expected.add(f"/usr/share/doc/trainready/rules/{name}")
    for p in sorted(expected - paths):
        fail(f"the package lacks {p}")
    # The network plugin, in the multiarch library directory's trainready/ (CMakeLists.txt).
    net = [p for p in paths if re.fullmatch(r"/usr/lib/[^/]+/trainready/libtrainready-net\.so", p)]
    if len(net) != 1:
        fail(f"the package should hold /usr/lib/<multiarch>/trainready/libtrainready-net.so once: "
             f"{net}")
    expected.update(net)
    print(f"ok: the package holds the {len(expected)} expected files")


def install_into_sandbox(deb, root):
    admin = os.path.join(root, "var", "lib", "dpkg")
    for d in ("updates", "info", "triggers"):
        os.makedirs(os.path.join(admin, d), exist_ok=True)
    for f in ("status", "available"):
        open(os.path.join(admin, f), "w").close()
    # --root: the instdir and admindir both under the sandbox; --force-depends: its empty
    # status knows no libc6 (the libraries themselves are this machine's, found by the loader).
    must(["dpkg", f"--root={root}", f"--log={root}/dpkg.log", "--force-depends",
          "--force-not-root", "-i", deb])
    status = must(["dpkg", f"--root={root}", "-s", "trainready"]).stdout
    if "Status: install ok installed" not in status:
        fail(f"dpkg --root -s trainready:\n{status}")
    print(f"ok: dpkg --root={root} -i installed it")


def check_installed_binary(binary, source, version):
    r = run([binary, "--version"])
    if r.returncode != 0 or not r.stdout.startswith(f"trainready {version}\n"):
        fail(f"--version: exit {r.returncode}: {r.stdout!r} {r.stderr!r}")
    # The network plugin comes from the installed layout beside the binary, not the build tree.
    usr = os.path.dirname(os.path.dirname(binary))
    plugins = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(usr, "lib")) for f in fs
               if f == "libtrainready-net.so"]
    plugin = plugins[0] if len(plugins) == 1 else f"{usr}/lib/<multiarch>/trainready/"
    m = re.search(r"^network plugin: libtrainready-net\.so .* from (\S+) \(installed layout\)$",
                  r.stdout, re.M)
    if not m or os.path.realpath(m.group(1)) != os.path.realpath(plugin):
        fail(f"--version does not name the installed network plugin {plugin}: {r.stdout!r}")
    example = os.path.join(source, "examples", "nd-h100-healthy")
    r = run([binary, "doctor", "--root", example, "--color", "never"])
    if r.returncode != 0 or not r.stdout.startswith("READY"):
        fail(f"doctor --root {example}: exit {r.returncode}: {r.stdout[:300]!r} {r.stderr!r}")
    # Without trainready-mpi, bench says what to install (exit 2), and doctor never needed it.
    env = {k: v for k, v in os.environ.items() if k != "TRAINREADY_MPI_PLUGIN"}
    r = run([binary, "bench", "allreduce", "-b", "8", "-e", "8"], env=env)
    if r.returncode != 2 or "trainready-mpi" not in r.stderr:
        fail(f"bench allreduce without the plugin: exit {r.returncode}: {r.stderr.strip()!r}")
    print("ok: the installed binary runs: --version, doctor --root examples/nd-h100-healthy: READY;"
          " bench without trainready-mpi says to install it (exit 2)")


def man_text(page):
    """The roff source with the escapes the generator uses undone, for plain word searches."""
    text = re.sub(r"\\f[BIRP]", "", page)
    return text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")


def check_man_page(path, tree):
    before = len(FAILURES)
    with gzip.open(path, "rt") as f:
        page = f.read()
    # groff's own parser, every warning on: escapes and requests must be right.
    r = run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=page)
    if r.returncode != 0 or r.stderr.strip():
        fail(f"groff -man -ww: exit {r.returncode}: {r.stderr.strip()}")
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS",
                    "FILES", "SEE ALSO"):
        if not re.search(rf'^\.SH "?{section}"?$', page, re.M):
            fail(f"man page: no {section} section")
    text = man_text(page)
    # Text by section: .SS "bench storage" ... up to the next .SS / .SH; the program's own
    # options are under .SH OPTIONS.
    blocks = {}
    for m in re.finditer(r'^\.S([SH]) "?([^"\n]*)"?\n(.*?)(?=^\.S[SH] |\Z)', text, re.M | re.S):
        blocks[("SS" if m.group(1) == "S" else "SH", m.group(2))] = m.group(3)
    checked = 0
    for path_words, node in tree.items():
        key = ("SS", " ".join(path_words)) if path_words else ("SH", "OPTIONS")
        if key not in blocks:
            fail(f"man page: no section for `{' '.join(path_words) or 'trainready'}`")
            continue
        body = blocks[key]
        # The program's own subcommands are the COMMANDS section's headings, checked above.
        words = node["options"] + (node["subcommands"] if path_words else [])
        for word in words:
            checked += 1
            if not re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", body):
                fail(f"man page: `{' '.join(path_words)}` section lacks {word}")
    for m in re.finditer(r"^(?!\.)(.*)$", page, re.M):
        if m.group(1).startswith("'"):
            fail(f"man page: a text line starts with ' (a roff request): {m.group(1)!r}")
    report_ok(f"man page: {len(tree)} commands, {checked} option and subcommand names in place",
              before)


def bash_cases(completion, cases, workdir):
    """Each case: words typed (the last one is being completed) -> COMPREPLY."""
    script = [f"source {shlex.quote(completion)}"]
    for i, words in enumerate(cases):
        quoted = " ".join(shlex.quote(w) for w in words)
        script += [f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMPREPLY=()",
                   f"COMP_LINE={shlex.quote(' '.join(words))}; COMP_POINT=${{#COMP_LINE}}",
                   "_trainready", f"echo '@@{i}'", 'printf "%s\\n" "${COMPREPLY[@]}"']
    r = must(["bash", "--norc", "-c", "\n".join(script)], cwd=workdir)
    return split_cases(r.stdout, len(cases))


def zsh_cases(completion, cases, workdir):
    """The zsh function, run with the completion system's entry points stubbed to print what
    they are given (zsh itself narrows that list to the word's prefix)."""
    stubs = r"""
_describe() { local name; for name in "${(@P)${@[-1]}}"; do print -r -- "${name%%:*}"; done }
compadd() { [[ $1 == -a ]] && print -rl -- "${(@P)2}" }
_files() { print -r -- '<files>' }
"""
    script = [stubs, f"source {shlex.quote(completion)}"]
    for i, words in enumerate(cases):
        quoted = " ".join(shlex.quote(w) for w in words)
        script += [f"words=({quoted}); CURRENT={len(words)}", f"print -r -- '@@{i}'", "_trainready"]
    r = must(["zsh", "-f", "-c", "\n".join(script)], cwd=workdir)
    return split_cases(r.stdout, len(cases))


ZPTY_SCRIPT = r"""
# $1: a directory holding _trainready; $2: the line to type before TAB; $3: the pattern the
# screen must then show. A real interactive zsh on a pseudo-terminal, compinit and all.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='%% '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; print READY-\$((1+1))"
zpty -r -m z out '*READY-2*' || { print -r -- "no shell: $out"; exit 1 }
zpty -w -n z "$2"$'\t'
zpty -r -m z out "$3" || { print -r -- "no match: $out"; exit 1 }
zpty -d z
"""


def check_zsh_interactive(completion_dir):
    """zsh's own completion system, driven through a pseudo-terminal: TAB must complete."""
    for typed, shown in (("trainready bench st", "*trainready bench storage*"),
                         ("trainready doctor --ro", "*trainready doctor --root*")):
        r = run(["timeout", "120", "zsh", "-f", "-c", ZPTY_SCRIPT, "zpty-test", completion_dir,
                 typed, shown])
        if r.returncode != 0:
            fail(f"interactive zsh: `{typed}<TAB>` did not show {shown} (exit {r.returncode}): "
                 f"{r.stdout[-300:]!r}")
    print("ok: interactive zsh (zpty, compinit): TAB completes bench storage and doctor --root")


def split_cases(out, n):
    results, current = [], None
    for line in out.splitlines():
        if line.startswith("@@"):
            current = []
            results.append(current)
        elif current is not None and line:
            current.append(line)
    if len(results) != n:
        print(f"FATAL: expected {n} completion results, got {len(results)}:\n{out}")
        sys.exit(1)
    return results


def check_completions(shell, run_cases, completion, tree, workdir):
    before = len(FAILURES)
    cases, wanted = [], []
    for path_words, node in tree.items():
        cases.append(["trainready", *path_words, "-"])
        wanted.append((set(node["options"]), f"`{' '.join(path_words)} -`"))
        if node["subcommands"]:
            cases.append(["trainready", *path_words, ""])
            wanted.append((set(node["subcommands"]), f"`{' '.join(path_words)} `"))
    # The examples the brief asks for, then values: allowed ones, and a file for a free value.
    examples = [
        (["trainready", "bench", "st"], {"storage"}),
        (["trainready", "doctor", "--ro"], {"--root"}),
        (["trainready", "lint", "--format", "s"], {"sarif"}),
        (["trainready", "doctor", "--fail-on", ""], {"error", "warning", "info"}),
        (["trainready", "doctor", "--root", "ex"], {"examples"}),
        (["trainready", "completions", ""], {"bash", "zsh"}),
        (["trainready", "doctor", "--root", "bench", "--js"], {"--json"}),
    ]
    if shell == "bash":
        # bash splits "--format=j" at COMP_WORDBREAKS' '=' into three words.
        examples.append((["trainready", "lint", "--format", "=", "j"], {"json"}))
        examples.append((["trainready", "lint", "--format", "="], {"text", "json", "sarif"}))
    else:  # the stubs print what would be offered, before zsh narrows it to the prefix
        examples = [(w, {"<files>"} if exp == {"examples"} else exp) for w, exp in examples]
    for words, exp in examples:
        cases.append(words)
        wanted.append((exp, f"`{' '.join(words[1:])}`"))
    results = run_cases(completion, cases, workdir)
    for (exp, what), got in zip(wanted, results):
        missing = exp - set(got)
        if missing:
            fail(f"{shell} completion of {what} lacks {sorted(missing)} (got {got})")
    report_ok(f"{shell} completion: {len(cases)} cases, every command's options and subcommands",
              before)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    # Fail, never skip: a machine without these cannot say whether the package works.
    for tool in ("cpack", "dpkg", "dpkg-deb", "dpkg-shlibdeps", "bash", "zsh", "groff"):
        if not shutil.which(tool):
            print(f"FATAL: {tool} not found (scripts/setup-deps.sh installs it)")
            return 1
    source = os.path.abspath(a.source)
    host_before = run(["dpkg-query", "-W", "trainready"]).returncode
    with tempfile.TemporaryDirectory(prefix="trainready-package-") as tmp:
        out = os.path.join(tmp, "out")
        must(["cpack", "-G", "DEB", "--config", os.path.join(a.build, "CPackConfig.cmake"),
              "-B", out], cwd=a.build)
        debs = sorted((f for f in os.listdir(out) if f.endswith(".deb")),
                      key=lambda f: f.startswith("trainready-mpi_"))
        if len(debs) != 2 or not debs[0].startswith("trainready_") or \
                not debs[1].startswith("trainready-mpi_"):
            print(f"FATAL: expected trainready_*.deb and trainready-mpi_*.deb in {out}: {debs}")
            return 1
        deb = os.path.join(out, debs[0])
        built = must([os.path.join(a.build, "trainready"), "--version"]).stdout
        version = built.split()[1]
        check_control(deb, version)
        check_mpi_control(os.path.join(out, debs[1]), version)
        check_contents(deb, source)
        root = os.path.join(tmp, "root")
        install_into_sandbox(deb, root)
        binary = os.path.join(root, "usr", "bin", "trainready")
        check_installed_binary(binary, source, version)
        tree = cli_tree(binary)
        check_man_page(os.path.join(root, "usr/share/man/man1/trainready.1.gz"), tree)
        workdir = os.path.join(tmp, "cwd")  # file names offered: just this one
        os.makedirs(os.path.join(workdir, "examples"))
        r = run(["zsh", "-n", os.path.join(root, "usr/share/zsh/vendor-completions/_trainready")])
        if r.returncode != 0:
            fail(f"zsh -n _trainready: {r.stderr}")
        r = run(["bash", "-n", os.path.join(root, "usr/share/bash-completion/completions/trainready")])
        if r.returncode != 0:
            fail(f"bash -n trainready: {r.stderr}")
        check_completions("bash", bash_cases,
                          os.path.join(root, "usr/share/bash-completion/completions/trainready"),
                          tree, workdir)
        check_completions("zsh", zsh_cases,
                          os.path.join(root, "usr/share/zsh/vendor-completions/_trainready"),
                          tree, workdir)
        check_zsh_interactive(os.path.join(root, "usr/share/zsh/vendor-completions"))
    if run(["dpkg-query", "-W", "trainready"]).returncode != host_before:
        fail("the machine's own dpkg database changed")
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("package: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
