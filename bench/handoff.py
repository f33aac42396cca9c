"""Prototype measurement, no feature: what `stringsh -c` would cost if it handed its request to a running server.

    python bench/handoff.py [--runs 40]

`stringsh -c '/ls'` imports about 50 stringsh modules and the standard library they need (typing, pathlib with
urllib.parse and ipaddress, json, threading, re, enum…); that standard library alone is ~2.6x `python -c pass`
(bench/startup.py), so no trimming of stringsh's own imports reaches the 3x goal. A request handed to a process
that has all of that loaded already costs a bare interpreter, one connect and the command itself. This bench
starts such a server for one workspace (a Unix socket in a private 0700 folder, the peer's uid checked with
SO_PEERCRED, each request run by a `Dispatcher` and its reply written as `-c` writes it) and times, taking turns:
`python -c pass`, the thin client (`_socket` only: no enum, no pathlib), and the real `stringsh -c '/ls'`. The
client's output is checked byte for byte against the real one's first. Nothing here is reachable from the CLI.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import record
from benchenv import compile_package, isolate_user_state
from startup import time_commands

ROOT = Path(__file__).resolve().parent.parent

SERVER = r"""
import io, os, socket, struct, sys
sys.path.insert(0, sys.argv[3])
from stringsh.dispatcher import Dispatcher
from stringsh.output import reply_writer
from stringsh.script import exit_status

root, path = os.path.realpath(sys.argv[1]), sys.argv[2]
dispatcher = Dispatcher(root)
dispatcher.execute("/ls")  # loaded and warm, as a server that has answered before
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(16)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    with conn:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        if uid != os.getuid():
            continue  # another user's process: never served
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        cwd, _, request = data.partition(b"\0")
        if os.path.realpath(os.fsdecode(cwd)) != root:
            conn.sendall(b"\xff")  # not this server's workspace: the client runs the request itself
            continue
        reply = dispatcher.execute(request.decode("utf-8", "surrogateescape"))
        out = io.BytesIO()
        reply_writer(out, color=False).write(reply.text)
        conn.sendall(bytes([exit_status(reply.ok, reply.code)]) + out.getvalue())
"""

#: What `stringsh -c` would run before importing anything of stringsh: find the workspace's socket (here handed in),
#: send the folder and the request, copy the reply out. `_socket` rather than `socket`: the latter imports enum.
CLIENT = r"""
import _socket, os, sys
s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(os.fsencode(os.getcwd()) + b"\0" + sys.argv[2].encode())
s.shutdown(1)
chunks = []
while chunk := s.recv(65536):
    chunks.append(chunk)
data = b"".join(chunks)
sys.stdout.buffer.write(data[1:])
sys.stdout.flush()
sys.exit(data[0])
"""


def main() -> int:
    isolate_user_state()
    compile_package()  # the processes it times load bytecode, as an install's do
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    script = Path(sys.executable).with_name("stringsh")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "stringsh"]
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "used"
        (ws / "docs").mkdir(parents=True)
        (ws / "README.md").write_text("# hi\n")
        subprocess.run([*command, "-c", "/write notes.md\n# notes\n"], cwd=ws, check=True, stdout=subprocess.DEVNULL)
        private = Path(tmp) / "run"
        private.mkdir(mode=0o700)
        sock = str(private / "s")
        server = subprocess.Popen([sys.executable, "-c", SERVER, str(ws), sock, str(ROOT)], stdout=subprocess.PIPE,
                                  text=True)
        try:
            assert server.stdout is not None and server.stdout.readline() == "ready\n"
            client = [sys.executable, "-c", CLIENT, sock, "/ls"]
            real = subprocess.run([*command, "-c", "/ls"], cwd=ws, capture_output=True, check=True).stdout
            handed = subprocess.run(client, cwd=ws, capture_output=True, check=True).stdout
            assert handed == real, (handed, real)
            bare, thin, whole = time_commands(
                [([sys.executable, "-c", "pass"], ws), (client, ws), ([*command, "-c", "/ls"], ws)], args.runs
            )
        finally:
            server.kill()
            server.wait()
    ms = 1000
    print(f"python -c pass: {bare[0] * ms:.1f} ms (reference; CPU {bare[1] * ms:.1f} ms)")
    for name, took in (("stringsh -c '/ls', in process", whole), ("-c '/ls' handed to a running server", thin)):
        print(f"{name}: {took[0] * ms:.1f} ms, {took[0] / bare[0]:.2f}x python -c pass {bare[0] * ms:.1f} ms "
              f"(goal <= 3x); CPU {took[1] * ms:.1f} ms, {took[1] / bare[1]:.2f}x")
    record.record("start-up", "-c /ls handed to a running server (prototype)", thin[0], "python -c pass", bare[0],
                  3.0)
    print("load average:", " ".join(Path("/proc/loadavg").read_text().split()[:3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
