"""``bazarsim serve``: the local web app for coaches (hand analysis, study browser, deal
replay), answered by a pool of worker processes."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from typing import Annotated

import typer

from bazarsim.cli.common import command
from bazarsim.core.errors import BazarsimError


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def has_screen() -> bool:
    """A graphical browser to open: a desktop session (a display, or macOS, Windows)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or sys.platform in ("darwin", "win32"))


def check_port(host: str, port: int) -> None:
    """Refuse, before the workers start, a port that is taken or not allowed."""
    if not 0 <= port <= 65535:
        raise BazarsimError(f"--port {port}: give 0 .. 65535 (0: any free port)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host.strip("[]"), port))
        except OSError as exc:
            raise BazarsimError(f"cannot listen on {host}:{port}: {exc.strerror or exc} (is "
                                "another server there? choose another --port)") from None


@command("serve")
def serve_command(
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free "
                                      "one).")] = 8000,
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on. The default serves this machine only; another "
        "address lets anyone who can reach it use the app: it has no login.")] = "127.0.0.1",
    data: Annotated[str | None, typer.Option(
        "--data", help="The directory of datasets the study browser and the deal replay may "
        "open: only files under it can be read.")] = None,
    jobs: Annotated[int, typer.Option(
        "--jobs", "-j", help="Worker processes answering questions at once (each uses the "
        "machine's cores for its kernels); more questions wait their turn.")] = 1,
    no_browser: Annotated[bool, typer.Option(
        "--no-browser", help="Do not open the browser.")] = False,
) -> None:
    """Start the local web app: type a hand and see what each bid is worth (with the
    auction so far, if any), browse a study of a dataset under --data, replay a deal card by
    card. Needs the app extra (starlette and uvicorn); no network is used.
    Stop it with Ctrl-C."""
    try:
        import uvicorn
    except ImportError:
        raise BazarsimError("bazarsim serve needs the app extra: pip install "
                            "'bazarsim[app]' (starlette and uvicorn)") from None
    from bazarsim.app.server import LOCAL_HOSTS, make_app

    if jobs < 1:
        raise BazarsimError(f"--jobs {jobs}: at least one worker")
    local = is_loopback(host)
    check_port(host, port)
    if port == 0:
        with socket.socket() as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
    app = make_app(data, jobs, hosts=LOCAL_HOSTS if local else ["*"])
    url = f"http://{'127.0.0.1' if local else host}:{port}/"
    if not local:
        typer.echo(f"warning: listening on {host}: the app has no login, anyone who can reach "
                   f"this address can use it and read the datasets under --data", err=True)
    typer.echo(f"bazarsim serve: {url} ({jobs} worker{'s' if jobs > 1 else ''}"
               + (f", datasets under {data}" if data else ", no --data: study browser and "
                  "dataset deals off") + "); Ctrl-C stops it", err=True)
    if not no_browser and has_screen():
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, (url,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")
