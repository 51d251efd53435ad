"""Azurite (the Azure Storage emulator, tools/azurite from the npm registry) for the Blob tests,
the Blob benchmark and `make demo`: started on 127.0.0.1 on a free port with a temporary
workspace, stopped afterwards. It fails loudly when it cannot start: a Blob test never passes
without a Blob service.

Also the client side a test needs to put blobs there: Azurite's well-known development account
key ("Use the Azurite emulator for local Azure Storage development", learn.microsoft.com), SAS
tokens signed with it (HMAC-SHA256 over the documented string-to-sign), and Put Blob / Set Blob
Properties through urllib. Nothing here talks to anything but 127.0.0.1.

As a script: `azurite.py serve --dir D --info F` starts Azurite, writes {"endpoint", "pid"} to F
and stays until killed (make demo, bench); `azurite.py stop F` stops it.
"""

import base64
import datetime
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AZURITE_BIN = os.path.join(ROOT, "tools", "azurite", "node_modules", ".bin", "azurite-blob")
ACCOUNT = "devstoreaccount1"
# The emulator's published development key (the docs above; Azurite's
# dist/src/blob/utils/constants.js EMULATOR_ACCOUNT_KEY_STR).
ACCOUNT_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
# A version both Azurite 3.35 and the Blob service document; the client (src/blob) sends the
# same one.
SAS_VERSION = "2021-08-06"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Azurite:
    def __init__(self, workspace=None, extra_args=()):
        self.own_workspace = workspace is None
        self.workspace = workspace or tempfile.mkdtemp(prefix="trainready-azurite-")
        self.extra_args = list(extra_args)
        self.proc = None
        self.port = None
        self.log_path = os.path.join(self.workspace, "azurite.log")

    @property
    def endpoint(self):
        scheme = "https" if "--cert" in self.extra_args else "http"
        return f"{scheme}://127.0.0.1:{self.port}/{ACCOUNT}"

    def start(self, timeout=60):
        if not os.path.exists(AZURITE_BIN):
            raise RuntimeError(f"cannot start Azurite: {AZURITE_BIN} is missing; "
                               "run scripts/setup-deps.sh (make deps), which installs it from npm")
        for _ in range(5):  # another process may take the free port before Azurite binds it
            self.port = free_port()
            log = open(self.log_path, "w")
            # --disableTelemetry: Azurite otherwise reports to an outside address.
            self.proc = subprocess.Popen(
                [AZURITE_BIN, "--blobHost", "127.0.0.1", "--blobPort", str(self.port),
                 "--location", self.workspace, "--skipApiVersionCheck", "--loose",
                 "--disableTelemetry", "--disableProductStyleUrl"] + self.extra_args,
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
            log.close()
            deadline = time.time() + timeout
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                        return self
                except OSError:
                    time.sleep(0.1)
            self.stop()
        with open(self.log_path, errors="replace") as f:
            tail = f.read()[-2000:]
        raise RuntimeError(f"cannot start Azurite ({AZURITE_BIN}); its log:\n{tail}")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self.own_workspace:
            shutil.rmtree(self.workspace, ignore_errors=True)

    # ---- SAS tokens -------------------------------------------------------------------------

    def container_sas(self, container, permissions="rl", expiry_hours=2):
        """A service SAS for one container (sr=c), string-to-sign of "Create a service SAS",
        version 2020-12-06 and later."""
        start = (datetime.datetime.utcnow() - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
        expiry = (datetime.datetime.utcnow() + datetime.timedelta(hours=expiry_hours)).strftime("%Y-%m-%dT%H:%M:%SZ")
        fields = [permissions, start, expiry, f"/blob/{ACCOUNT}/{container}", "", "", "",
                  SAS_VERSION, "c", "", "", "", "", "", "", ""]
        sig = self._sign("\n".join(fields))
        return urllib.parse.urlencode({"sv": SAS_VERSION, "sr": "c", "sp": permissions,
                                       "st": start, "se": expiry, "sig": sig})

    def account_sas(self, permissions="rwdlac"):
        """An account SAS (Blob service, all resource types), for the test's own uploads."""
        start = (datetime.datetime.utcnow() - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
        expiry = (datetime.datetime.utcnow() + datetime.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
        fields = [ACCOUNT, permissions, "b", "sco", start, expiry, "", "", SAS_VERSION, "", ""]
        sig = self._sign("\n".join(fields))
        return urllib.parse.urlencode({"sv": SAS_VERSION, "ss": "b", "srt": "sco",
                                       "sp": permissions, "st": start, "se": expiry, "sig": sig})

    def _sign(self, string_to_sign):
        key = base64.b64decode(ACCOUNT_KEY)
        return base64.b64encode(hmac.new(key, string_to_sign.encode(), hashlib.sha256).digest()).decode()

    # ---- requests ---------------------------------------------------------------------------

    def request(self, method, path, query="", data=None, headers=None):
        url = f"{self.endpoint}/{urllib.parse.quote(path)}?{query}"
        if query:
            url += "&"
        url += self.account_sas()
        h = {"x-ms-version": SAS_VERSION}
        h.update(headers or {})
        req = urllib.request.Request(url, data=data, method=method, headers=h)
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, dict(resp.headers), resp.read()

    def create_container(self, container):
        self.request("PUT", container, "restype=container")

    def put_blob(self, container, name, data, content_md5=True):
        """Put Blob in one request. With content_md5=True the blob carries the MD5 of its bytes;
        False: the property is cleared afterwards (Set Blob Properties without
        x-ms-blob-content-md5 clears it), as for blobs uploaded in blocks by most tools; bytes
        or base64: that MD5 is stored afterwards, matching the bytes or not."""
        headers = {"x-ms-blob-type": "BlockBlob", "Content-Type": "application/octet-stream"}
        if content_md5 is True:
            headers["x-ms-blob-content-md5"] = base64.b64encode(hashlib.md5(data).digest()).decode()
        _, h, _ = self.request("PUT", f"{container}/{name}", "", data, headers)
        if content_md5 is False:
            self.request("PUT", f"{container}/{name}", "comp=properties", b"",
                         {"x-ms-blob-content-type": "application/octet-stream"})
        elif isinstance(content_md5, (bytes, str)):
            # A stored MD5 that need not match (Put Blob checks it; Set Blob Properties does not).
            md5 = content_md5 if isinstance(content_md5, str) else base64.b64encode(content_md5).decode()
            _, h, _ = self.request("PUT", f"{container}/{name}", "comp=properties", b"",
                                   {"x-ms-blob-content-type": "application/octet-stream",
                                    "x-ms-blob-content-md5": md5})
        return h.get("ETag") or h.get("etag")

    def properties(self, container, name):
        _, h, _ = self.request("HEAD", f"{container}/{name}")
        return h


def _serve(args):
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--info", required=True)
    a = p.parse_args(args)
    os.makedirs(a.dir, exist_ok=True)
    az = Azurite(workspace=a.dir).start()
    with open(a.info + ".tmp", "w") as f:
        json.dump({"endpoint": az.endpoint, "pid": az.proc.pid, "port": az.port,
                   "sas_all": az.account_sas()}, f)
    os.rename(a.info + ".tmp", a.info)
    return az


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "serve":
        az = _serve(sys.argv[2:])
        print(az.endpoint, flush=True)
        sys.exit(0)  # Azurite runs on in its own session; `stop` ends it
    if len(sys.argv) == 3 and sys.argv[1] == "stop":
        with open(sys.argv[2]) as f:
            pid = json.load(f)["pid"]
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        sys.exit(0)
    print("usage: azurite.py serve --dir D --info F | azurite.py stop F", file=sys.stderr)
    sys.exit(2)
