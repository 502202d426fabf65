"""A headless Chromium driven over the DevTools protocol on a pipe (no port, no network).

Chromium started with ``--remote-debugging-pipe`` reads protocol commands on
file descriptor 3 and writes replies and events on 4, each a JSON text ended
by a NUL byte. This is all the tests need: open a page, collect console
errors, exceptions and network requests, evaluate a script, take a
screenshot and print to PDF. Only the standard library is used.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

#: Schemes a self-contained page may load from (the page itself, inline data).
LOCAL_SCHEMES = ("file:", "data:", "about:")


def chromium() -> str | None:
    """The Chromium program on PATH (Debian names it ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(Exception):
    """Chromium failed, answered with an error, or did not answer in time."""


class Browser:
    """One headless Chromium process and one page in it."""

    def __init__(self, profile: Path, *, timeout: float = 60.0) -> None:
        program = chromium()
        if program is None:
            raise BrowserError("no chromium on PATH (Debian: apt-get install chromium)")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def descriptors() -> None:
            # Chromium's protocol pipe: it reads fd 3 and writes fd 4.
            os.dup2(to_browser_read, 3)
            os.dup2(from_browser_write, 4)

        self.timeout = timeout
        self.process = subprocess.Popen(
            [
                program,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=descriptors,  # noqa: PLW1509 (the test process starts no threads here)
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise BrowserError("chromium closed its protocol pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(message))

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = False
    ) -> dict[str, Any]:
        """Send one command (to the page's session with ``session``) and wait for its reply."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """Wait for the next event ``method`` (events already received count)."""
        deadline = time.monotonic() + self.timeout
        for event in self.events:
            if event.get("method") == method and not event.get("_seen"):
                event["_seen"] = True
                return event
        while True:
            event = self._read(deadline)
            self.events.append(event)
            if event.get("method") == method:
                event["_seen"] = True
                return event

    def open(self, url: str) -> float:
        """Navigate to ``url``, wait for its load event; the page's load time in seconds."""
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired")
        timing = self.evaluate(
            "(() => { const n = performance.getEntriesByType('navigation')[0];"
            " return n.loadEventEnd - n.startTime; })()"
        )
        return float(timing) / 1000

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries so far."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(json.dumps(params.get("args")))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def requests(self) -> list[str]:
        """The URL of every request the page made so far."""
        return [
            event["params"]["request"]["url"]
            for event in self.events
            if event.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(self, path: Path, *, full_page: bool = False) -> None:
        """Save a PNG screenshot of the page (its whole height with ``full_page``)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params, session=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def pdf(self, path: Path) -> None:
        """Print the page to an A4 PDF (backgrounds on), as a committee member would."""
        data = self.call(
            "Page.printToPDF",
            {"paperWidth": 8.27, "paperHeight": 11.69, "printBackground": True,
             "preferCSSPageSize": True},
            session=True,
        )["data"]  # fmt: skip
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        """Close the browser and its pipes."""
        with contextlib.suppress(BrowserError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
