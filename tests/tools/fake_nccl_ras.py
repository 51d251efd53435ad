#!/usr/bin/env python3
"""A stand-in for the client socket of NCCL's RAS thread, on 127.0.0.1 and an ephemeral port.

It speaks what NVIDIA/nccl src/ras/client_support.cc (rasClientProcessMsg) speaks: one command a
line, case-insensitive, each answered before the next is read:
  "CLIENT PROTOCOL <n>" -> "SERVER PROTOCOL 2"
  "TIMEOUT <s>"         -> "OK" ("ERROR: Invalid timeout value <s>" when not a number >= 0)
  "SET FORMAT json"     -> "OK" from v2.28.7; before, "ERROR: Unknown command SET FORMAT json"
  "STATUS"              -> the report, then the connection is closed (RAS_CLIENT_FINISHED)
The reports are tests/data/watch/ras-status-v2.24.3.txt (text; sent in the two messages
rasClientRunInit and rasClientRunComms send) and ras-status-v2.28.7.json (JSON: one message),
written from the format strings of those tags (tests/data/SOURCES.md).

Modes (how the server misbehaves):
  v2.24      the text report; refuses SET FORMAT as 2.24.3 does
  v2.28      the JSON report
  silent     accepts and never answers anything
  stall      answers the handshake, never the STATUS
  close      reads the first line and closes
  oversized  answers the handshake, then 3 MiB of report
  garbage    answers the first line with an HTTP error (not a RAS server)

  fake_nccl_ras.py MODE     prints the port, serves until killed
"""
import os
import socket
import sys
import threading
import time

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "watch")
TEXT_REPORT = os.path.join(DATA, "ras-status-v2.24.3.txt")
JSON_REPORT = os.path.join(DATA, "ras-status-v2.28.7.json")
MODES = ("v2.24", "v2.28", "silent", "stall", "close", "oversized", "garbage")


class FakeRas:
    def __init__(self, mode):
        if mode not in MODES:
            raise ValueError(mode)
        self.mode = mode
        self.commands = []  # every line received, in order
        self.connections = 0
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"
        self.stopping = False
        self.held = []
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self.stopping = True
        for c in self.held:
            try:
                c.close()
            except OSError:
                pass
        self.sock.close()

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        if self.mode == "silent":
            self.held.append(conn)  # open, never a byte back
            return
        buf = b""
        json_format = False
        try:
            while True:
                while b"\n" not in buf:
                    chunk = conn.recv(4096)
                    if not chunk:
                        conn.close()
                        return
                    buf += chunk
                line, buf = buf.split(b"\n", 1)
                cmd = line.rstrip(b"\r").decode("latin-1")
                self.commands.append(cmd)
                low = cmd.lower()
                if self.mode == "close":
                    conn.close()
                    return
                if self.mode == "garbage":
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                    conn.close()
                    return
                if low.startswith("client protocol "):
                    conn.sendall(b"SERVER PROTOCOL 2\n")
                elif low.startswith("timeout "):
                    v = cmd[len("timeout "):]
                    ok = v.isdigit()
                    conn.sendall(b"OK\n" if ok else f"ERROR: Invalid timeout value {v}\n".encode())
                elif low.startswith("set format "):
                    if self.mode == "v2.24":
                        conn.sendall(f"ERROR: Unknown command {cmd}\n".encode())
                    else:
                        json_format = cmd[len("set format "):].lower() == "json"
                        conn.sendall(b"OK\n")
                elif low in ("status", "verbose status"):
                    self._report(conn, json_format)
                    return
                else:
                    conn.sendall(f"ERROR: Unknown command {cmd}\n".encode())
        except OSError:
            pass

    def _report(self, conn, json_format):
        if self.mode == "stall":
            self.held.append(conn)
            return
        if self.mode == "oversized":
            line = b"  Rank 9 has launched up to operation 1233 -- GPU 1 managed by process 48213 on node 10.1.0.5\n"
            try:
                for _ in range(3 * 1024 * 1024 // len(line) + 1):
                    conn.sendall(line)
            except OSError:
                pass  # the client stopped reading at its bound and closed: expected
            conn.close()
            return
        if json_format:
            conn.sendall(open(JSON_REPORT, "rb").read())
        else:
            text = open(TEXT_REPORT, "rb").read()
            cut = text.index(b"\nCommunicators...")
            conn.sendall(text[:cut])  # rasClientRunInit's messages
            time.sleep(0.05)  # the communicators collective
            conn.sendall(text[cut:])
        conn.close()


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        print(__doc__)
        return 2
    srv = FakeRas(sys.argv[1])
    print(srv.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
