"""`judgecal app`: serve the review app with safe defaults for a shared machine.

Loopback unless --host says otherwise (and then a warning unless authentication is configured); a busy port is an
error before anything starts; the URL is printed only once the server answers; stopping `judgecal app` (SIGTERM,
Ctrl-C, or the parent dying) stops the Streamlit server it started.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Mapping, NamedTuple

from judgecal._args import say

DEFAULT_HOST = "127.0.0.1"
AUTH_ENV = "JUDGECAL_AUTH"  # set (e.g. "proxy") when something in front of the app authenticates every request
TRUSTED_HEADER_ENV = "JUDGECAL_TRUSTED_HEADER"  # the proxy's user header: also says a proxy authenticates
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0

# Streamlit options that keep the browser from fetching anything outside this server: no usage statistics; the
# pages carry no `:material/...:` icons (those load from fonts.gstatic.com).
OFFLINE_OPTIONS = ("--browser.gatherUsageStats", "false")


class AppError(Exception):
    """Cannot serve (port in use, server failed to start): exit 2."""


class AuthSource(NamedTuple):
    where: str  # what was found: the env var, or the secrets file with an [auth] section


def configured_auth(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> AuthSource | None:
    """Authentication in front of or inside the app: $JUDGECAL_AUTH or $JUDGECAL_TRUSTED_HEADER, or an [auth] section
    (Streamlit's st.login settings) in .streamlit/secrets.toml of the working folder or the home folder (where
    Streamlit reads it)."""
    env = os.environ if env is None else env
    for name in (AUTH_ENV, TRUSTED_HEADER_ENV):
        if env.get(name, "").strip():
            return AuthSource(f"${name}")
    for folder in ((cwd or Path.cwd()) / ".streamlit", Path.home() / ".streamlit"):
        secrets = folder / "secrets.toml"
        try:
            data = tomllib.loads(secrets.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if isinstance(data.get("auth"), dict) and data["auth"]:
            return AuthSource(f"[auth] in {secrets}")
    return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, auth: AuthSource | None) -> str | None:
    if is_loopback(host) or auth is not None:
        return None
    return (f"warning: the app listens on {host}, reachable by anyone on the network, and no authentication is "
            f"configured: anyone who can reach it can read every item and output and label as any reviewer. Put it "
            f"behind an authenticating proxy (then set {AUTH_ENV}=proxy) or configure [auth] in "
            ".streamlit/secrets.toml; see README 'Serving the app to a team'.")


def port_in_use(host: str, port: int) -> bool:
    """True when something already listens on host:port (SO_REUSEADDR: a socket in TIME_WAIT is not 'in use',
    as Tornado binds the same way)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def _listening(host: str, port: int) -> bool:
    target = "127.0.0.1" if host in ("0.0.0.0", "") else "::1" if host == "::" else host
    try:
        with socket.create_connection((target, port), timeout=1):
            return True
    except OSError:
        return False


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    # Linux: the server gets SIGTERM when `judgecal app` dies, even by SIGKILL (no orphaned server on the port).
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)  # Streamlit closes its server on SIGTERM
    try:
        proc.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def serve(app: Path, db: Path, *, host: str, port: int, headless: bool) -> int:
    warning = exposure_warning(host, configured_auth())
    if warning:
        say(warning, err=True)
    if port_in_use(host, port):
        raise AppError(f"port {port} on {host} is already in use (another `judgecal app`?): stop it, or choose "
                       "another with --port")
    env = dict(os.environ, JUDGECAL_DB=str(db))
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.address", host, "--server.port", str(port),
           *OFFLINE_OPTIONS]
    if headless:
        cmd += ["--server.headless", "true"]
    # SIGTERM to `judgecal app` must reach the finally below (Python's default would exit without it).
    previous = signal.signal(signal.SIGTERM, _exit_on_signal)
    proc = subprocess.Popen(cmd, env=env, preexec_fn=_die_with_parent if sys.platform == "linux" else None)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _listening(host, port):
            if proc.poll() is not None:
                raise AppError(f"the app server exited with code {proc.returncode} before it listened on "
                               f"{host}:{port} (see its messages above)")
            if time.monotonic() > deadline:
                raise AppError(f"the app server did not listen on {host}:{port} within {START_TIMEOUT_S:g} s")
            time.sleep(0.2)
        shown = "localhost" if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host
        say(f"judgecal app on {db}: http://{shown}:{port}  (Ctrl+C stops it)")
        sys.stdout.flush()
        return proc.wait()
    except KeyboardInterrupt:
        say("app stopped", err=True)
        return 130
    finally:
        _stop(proc)
        signal.signal(signal.SIGTERM, previous)
