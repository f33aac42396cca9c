"""The `stringsh web` page in a real browser: Playwright driving the system's Chromium (never a browser Playwright
downloads), against a real `stringsh web` and real agents (`python -m stringsh -c`). From the page: a change appears
live with its diff, a secret in the diff is masked, the side-by-side view, a revert and a client's undo (each
confirmed, each refused on conflict), a forged request from another site refused; the page loads with no console
error and fetches nothing from another host. Screenshots of the main states are kept as artefacts: under
`$STRINGSH_TEST_ARTEFACTS/web/<test>/` when that is set, else in the test's tmp folder (`screens/`)."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.client import user_env
from tests.web.running import WebServer, agent, web_server

pytestmark = pytest.mark.needs("chromium")

SECRET = "AKIAIOSFODNN7EXAMPLE"
#: How long a condition on the page may take before the test fails: a liveness bound, not a speed check.
WAIT_MS = 30_000


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable is not None
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True)
        yield launched
        launched.close()


class Watched:
    """A page, with what it logged as errors and every address it asked for."""

    def __init__(self, page: object, server: WebServer) -> None:
        self.page = page
        self.server = server
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", lambda request: self.requests.append(request.url))

    def clean(self, *expected: str) -> None:
        """No console error (but `expected`: Chromium logs each refusal the page was answered with as one), and
        nothing asked of any host but the server's."""
        assert self.errors == list(expected)
        assert [url for url in self.requests if not url.startswith(self.server.url)] == []


def another_tab(watched: Watched, *scripts: str) -> Watched:
    """One more tab of the page in the same browser (each of `scripts` run first in it), once it is live and has read
    the page: a read still under way would show what is written next, whether the tab is hidden or not."""
    from playwright.sync_api import expect

    page = watched.page.context.new_page()  # type: ignore[attr-defined]
    for script in scripts:
        page.add_init_script(script)
    tab = Watched(page, watched.server)
    page.goto(f"{watched.server.url}#token={watched.server.token}")
    expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
    page.wait_for_function("() => state.loading === null", timeout=WAIT_MS)  # and has read the page (after "live")
    return tab


@pytest.fixture
def screens(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    kept = os.environ.get("STRINGSH_TEST_ARTEFACTS")
    folder = Path(kept) / "web" / request.node.name if kept else tmp_path / "screens"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def site(tmp_path: Path, browser: object, screens: Path) -> Iterator[tuple[Watched, Path, dict[str, str], Path]]:
    """A fresh workspace, its `stringsh web`, and a browser page open on it (live); and where screenshots go."""
    from playwright.sync_api import expect

    root = tmp_path / "ws"
    root.mkdir()
    env = user_env(tmp_path / "user")
    with web_server(root, env) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        page = context.new_page()
        watched = Watched(page, server)
        page.goto(f"{server.url}#token={server.token}")
        expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
        yield watched, root, env, screens
        context.close()


def test_a_change_appears_live_with_its_masked_diff_and_the_page_stays_clean(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    from playwright.sync_api import expect

    watched, root, env, screens = site
    page = watched.page
    assert page.url == watched.server.url  # the token left the address bar
    expect(page.locator("#chain")).to_have_text("audit log ok: 0 records", timeout=WAIT_MS)
    assert agent(root, env, f"/write keys.txt\nuser = ann\nkey = {SECRET}\n", "--client", "agent-a").returncode == 0
    item = page.locator('#changes li[data-id="1"]')
    expect(item).to_contain_text("/write keys.txt", timeout=WAIT_MS)
    expect(page.locator("#feed tbody tr").first).to_contain_text("keys.txt", timeout=WAIT_MS)
    expect(page.locator('#clients tbody tr[data-client="agent-a"]')).to_contain_text("string", timeout=WAIT_MS)
    item.click()
    diff = page.locator("#diff .line")
    expect(diff).to_have_count(5, timeout=WAIT_MS)
    shown = agent(root, env, "/changes 1").stdout.split("\n---\n", 1)[1].rstrip("\n").split("\n")
    assert diff.all_inner_texts() == shown
    assert SECRET not in page.content()
    assert any("REDACTED" in line for line in shown)
    # the /changes caller's row comes into the clients table within a second and moves what is below it: a click
    # meanwhile may land on the row moved under it
    expect(page.locator("#clients tbody tr")).to_have_count(2, timeout=WAIT_MS)
    page.screenshot(path=str(screens / "change.png"), full_page=True)
    page.locator("#view-split").click()
    expect(page.locator("#diff table.split tr")).to_have_count(4, timeout=WAIT_MS)
    expect(page.locator("#diff td.add").first).to_have_text("user = ann")
    page.screenshot(path=str(screens / "side-by-side.png"), full_page=True)
    assert agent(root, env, "/write --force keys.txt\nuser = bob\n", "--client", "agent-b").returncode == 0
    expect(page.locator('#changes li[data-id="2"]')).to_be_visible(timeout=WAIT_MS)
    # agent-b's row comes on top of the clients table within a second, moving what is below it: wait for it first
    expect(page.locator('#clients tbody tr[data-client="agent-b"]')).to_have_count(1, timeout=WAIT_MS)
    page.get_by_role("button", name="Who changed keys.txt").click()
    entries = page.locator("#timeline li")
    expect(entries).to_have_count(2, timeout=WAIT_MS)
    expect(page.locator("#timeline-head")).to_have_text("keys.txt: 2 change sets")
    expect(entries.nth(0)).to_contain_text("#2 agent-b (string) /write --force keys.txt")
    expect(entries.nth(1)).to_contain_text("#1 agent-a (string) /write keys.txt")
    entries.nth(0).click()
    expect(page.locator("#detail-head")).to_contain_text("Change 2,", timeout=WAIT_MS)
    chart = page.locator('#clients tbody tr[data-client="agent-a"] svg.chart')
    expect(chart).to_have_attribute("aria-label", "1 request, 0 refused, in the last hour")
    page.screenshot(path=str(screens / "timeline.png"), full_page=True)
    watched.clean()


def test_revert_from_the_page_is_confirmed_and_refused_on_conflict(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    from playwright.sync_api import expect

    watched, root, env, screens = site
    page = watched.page
    assert agent(root, env, "/write a.txt\nfirst\n").returncode == 0
    assert agent(root, env, "/write b.txt\nsecond\n").returncode == 0
    # the caller's row comes into the clients' table within a second, moving the list below: a click meanwhile may
    # land on the row moved under it
    expect(page.locator("#clients tbody tr")).to_have_count(1, timeout=WAIT_MS)
    page.locator('#changes li[data-id="1"]').click()
    expect(page.locator("#revert")).to_be_enabled(timeout=WAIT_MS)
    page.locator("#revert").click()
    dialog = page.locator("#confirm")
    expect(dialog).to_be_visible()
    expect(page.locator("#confirm-head")).to_have_text("Revert change 1?")
    assert page.locator("#confirm-diff .line").all_inner_texts() == ["--- b/a.txt", "+++ /dev/null",
                                                                      "@@ -1 +0,0 @@", "-first"]
    page.screenshot(path=str(screens / "confirm-revert.png"))
    assert (root / "a.txt").exists()  # nothing before the confirmation
    page.locator("#confirm-ok").click()
    expect(page.locator("#notice")).to_have_text("Reverted change 1 as change 3: deleted a.txt (was newly created)",
                                                 timeout=WAIT_MS)
    assert not (root / "a.txt").exists()
    expect(page.locator('#changes li[data-id="3"]')).to_contain_text("/revert 1", timeout=WAIT_MS)
    expect(page.locator('#changes li[data-id="1"]')).to_contain_text("(reverted by 3)", timeout=WAIT_MS)
    (root / "b.txt").write_text("edited by hand\n")
    expect(page.locator("#clients tbody tr")).to_have_count(2, timeout=WAIT_MS)  # and the page's own, for the revert
    page.locator('#changes li[data-id="2"]').click()
    expect(page.locator("#detail-head")).to_contain_text("Change 2,", timeout=WAIT_MS)
    page.locator("#revert").click()
    page.locator("#confirm-ok").click()
    notice = page.locator("#notice")
    expect(notice).to_have_class("conflict", timeout=WAIT_MS)
    expect(notice).to_contain_text("ERROR(CONFLICT)")
    assert (root / "b.txt").read_text() == "edited by hand\n"
    page.screenshot(path=str(screens / "conflict.png"), full_page=True)
    watched.clean("Failed to load resource: the server responded with a status of 409 (Conflict)")


def test_undo_of_one_client_from_its_row(site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    from playwright.sync_api import expect

    watched, root, env, screens = site
    page = watched.page
    assert agent(root, env, "/write n.txt\none\n", "--client", "agent-a").returncode == 0
    assert agent(root, env, "/write --force n.txt\ntwo\n", "--client", "agent-a").returncode == 0
    assert agent(root, env, "/write m.txt\nm\n", "--client", "agent-b").returncode == 0
    row = page.locator('#clients tbody tr[data-client="agent-a"]')
    expect(row).to_contain_text("2", timeout=WAIT_MS)
    expect(page.locator('#changes li[data-id="3"]')).to_be_visible(timeout=WAIT_MS)
    row.get_by_role("button", name="Undo latest…").click()
    expect(page.locator("#confirm-head")).to_have_text("Undo agent-a's latest change (2)?", timeout=WAIT_MS)
    assert page.locator("#confirm-diff .line").all_inner_texts()[-2:] == ["+one", "-two"]
    page.locator("#confirm-ok").click()
    expect(page.locator("#notice")).to_have_text("Undo: reverted n.txt (1 line)", timeout=WAIT_MS)
    assert ((root / "n.txt").read_text(), (root / "m.txt").read_text()) == ("one\n", "m\n")
    expect(page.locator("#feed tbody tr").first).to_contain_text("web.undo", timeout=WAIT_MS)
    page.screenshot(path=str(screens / "undo.png"), full_page=True)
    watched.clean()


class Elsewhere(http.server.BaseHTTPRequestHandler):
    """A page of another site (another port: another origin), which the attacker controls."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>elsewhere</title>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


def test_a_page_of_another_site_cannot_revert(site: tuple[Watched, Path, dict[str, str], Path],
                                              browser: object) -> None:
    watched, root, env, _ = site
    assert agent(root, env, "/write a.txt\nkeep me\n").returncode == 0
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()  # type: ignore[attr-defined]
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        target = watched.server.url
        # the attacker may even know the token: the Origin still gives the page away
        statuses = page.evaluate("""async ([target, token]) => {
            const tries = [
              fetch(target + "api/revert", {method: "POST", mode: "no-cors", body: '{"change": 1}',
                                            headers: {"Content-Type": "text/plain"}}),
              fetch(target + "api/revert", {method: "POST", body: '{"change": 1}',
                  headers: {"Content-Type": "application/json", "Authorization": "Bearer " + token}})
                .then(r => r.status, e => "blocked: " + e.name),
            ];
            const [opaque, cors] = await Promise.all(tries);
            return [opaque.type, cors];
        }""", [target, watched.server.token])
        page.close()
    finally:
        other.shutdown()
    assert statuses[0] == "opaque"
    assert re.fullmatch(r"blocked: TypeError", statuses[1])  # no CORS: the browser never shows the page a reply
    assert (root / "a.txt").read_text() == "keep me\n"
    assert [row["id"] for row in watched.server.get("api/changes").json()["rows"]] == [1]
    refused = [r for r in watched.server.get("api/audit").json()["records"] if r["dialect"] == "web"]
    assert refused == []  # refused before any request reached the engine


def test_a_page_left_open_keeps_its_newest_rows_and_older_ones_a_click_away(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    from playwright.sync_api import expect

    watched, root, env, _ = site
    page = watched.page
    page.evaluate("state.keep = { feed: 3, changes: 2 }")  # the page keeps 100 of each; 3 and 2 show the rule
    for n in range(1, 5):
        assert agent(root, env, f"/write f{n}.txt\n{n}\n").returncode == 0
        expect(page.locator(f'#changes li[data-id="{n}"]')).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#changes li")).to_have_count(2)
    assert page.locator("#changes li").evaluate_all("items => items.map(item => item.dataset.id)") == ["4", "3"]
    rows = page.locator("#feed tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("f4.txt")
    expect(rows.last).to_contain_text("f2.txt")
    page.locator("#more-changes").click()  # older than the oldest kept: 2 and 1
    expect(page.locator("#changes li")).to_have_count(4, timeout=WAIT_MS)
    page.locator("#more-feed").click()
    expect(rows).to_have_count(4, timeout=WAIT_MS)
    expect(rows.last).to_contain_text("f1.txt")
    assert agent(root, env, "/write f5.txt\n5\n").returncode == 0  # what the person asked for stays
    expect(page.locator('#changes li[data-id="5"]')).to_be_visible(timeout=WAIT_MS)
    expect(rows.first).to_contain_text("f5.txt", timeout=WAIT_MS)
    assert page.locator("#changes li").evaluate_all("items => items.map(item => item.dataset.id)") == [
        "5", "4", "3", "2"]
    expect(rows).to_have_count(4)
    watched.clean()


def test_eight_tabs_of_the_page_in_one_browser_all_load_and_follow(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    """A browser opens six connections to a server at most: a stream per tab would keep the seventh from loading.
    The tabs share one stream (stream.js, a shared worker)."""
    from playwright.sync_api import expect

    watched, root, env, _ = site
    context = watched.page.context
    tabs = [Watched(context.new_page(), watched.server) for _ in range(7)]
    for tab in tabs:
        tab.page.goto(f"{watched.server.url}#token={watched.server.token}")
    for tab in [watched, *tabs]:
        expect(tab.page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
    assert agent(root, env, "/write shared.txt\none\n").returncode == 0
    for tab in [watched, *tabs]:
        expect(tab.page.locator('#changes li[data-id="1"]')).to_contain_text("/write shared.txt", timeout=WAIT_MS)
        expect(tab.page.locator("#feed tbody tr").first).to_contain_text("shared.txt", timeout=WAIT_MS)
        assert tab.page.locator("#feed tbody tr").count() == 1  # shown once, whether by the read or the stream
    events = [url for tab in [watched, *tabs] for url in tab.requests if url.endswith("/api/events")]
    assert events == []  # no tab streams on its own: the shared worker does, for them all
    for tab in [watched, *tabs]:
        tab.clean()


HIDE = ("window.hiddenNow = true; Object.defineProperty(document, 'hidden', { configurable: true, "
        "get: () => window.hiddenNow }); document.dispatchEvent(new Event('visibilitychange'))")
SHOW = "window.hiddenNow = false; document.dispatchEvent(new Event('visibilitychange'))"


def test_a_hidden_tab_is_sent_nothing_until_it_is_shown(site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    """A tab in the background tells the shared worker, which keeps the batches for it and sends them when the tab is
    shown (the page reads `document.hidden` and its `visibilitychange` event; this browser shows every page, so the
    test stands in for the browser there). A tab in front sees the change meanwhile."""
    from playwright.sync_api import expect

    watched, root, env, _ = site
    behind = another_tab(watched)
    behind.page.evaluate(HIDE)
    behind.page.wait_for_function("() => state.keeping", timeout=WAIT_MS)  # the worker keeps its batches now
    assert agent(root, env, "/write behind.txt\none\n").returncode == 0
    expect(watched.page.locator("#feed tbody tr").first).to_contain_text("behind.txt", timeout=WAIT_MS)
    assert agent(root, env, "/write later.txt\ntwo\n").returncode == 0
    expect(watched.page.locator('#changes li[data-id="2"]')).to_be_visible(timeout=WAIT_MS)
    # the writes' batches wait in the worker, not in the tab (a batch sent before the worker was told, such as the
    # clients' once a second, may be in the tab)
    assert behind.page.evaluate("state.queued.filter((batch) => /behind\\.txt|later\\.txt/.test(batch))") == []
    expect(behind.page.locator("#feed tbody tr")).to_have_count(0)
    expect(behind.page.locator("#changes li")).to_have_count(0)
    behind.page.evaluate(SHOW)
    expect(behind.page.locator('#changes li[data-id="2"]')).to_contain_text("/write later.txt", timeout=WAIT_MS)
    assert behind.page.locator("#changes li").evaluate_all("items => items.map(item => item.dataset.id)") == ["2", "1"]
    expect(behind.page.locator("#feed tbody tr")).to_have_count(2)
    expect(behind.page.locator("#feed tbody tr").first).to_contain_text("later.txt")
    watched.clean()
    behind.clean()


def test_a_tab_hidden_past_what_it_keeps_reads_the_page_afresh_when_shown(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    from playwright.sync_api import expect

    watched, root, env, _ = site
    behind = another_tab(watched)
    behind.page.evaluate("state.keepHidden = 1")  # the page keeps 600 batches; 1 shows the rule
    behind.page.evaluate(HIDE)
    behind.page.wait_for_function("() => state.keeping", timeout=WAIT_MS)
    for n in range(1, 4):  # one batch each: the front tab shows each before the next is written
        assert agent(root, env, f"/write f{n}.txt\n{n}\n").returncode == 0
        expect(watched.page.locator(f'#changes li[data-id="{n}"]')).to_be_visible(timeout=WAIT_MS)
    read = len([url for url in behind.requests if "/api/audit" in url])
    behind.page.evaluate(SHOW)
    expect(behind.page.locator("#changes li")).to_have_count(3, timeout=WAIT_MS)
    expect(behind.page.locator("#feed tbody tr")).to_have_count(3)
    assert len([url for url in behind.requests if "/api/audit" in url]) == read + 1  # read afresh, once
    watched.clean()
    behind.clean()


def test_a_browser_without_shared_workers_follows_in_the_tab_and_a_hidden_one_builds_nothing_until_shown(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    """Where a browser has no shared worker the tab follows the stream itself and keeps its batches while hidden."""
    from playwright.sync_api import expect

    watched, root, env, _ = site
    tab = another_tab(watched, "delete window.SharedWorker")
    page = tab.page
    assert agent(root, env, "/write own.txt\none\n").returncode == 0
    expect(page.locator('#changes li[data-id="1"]')).to_contain_text("/write own.txt", timeout=WAIT_MS)
    expect(page.locator("#feed tbody tr")).to_have_count(1, timeout=WAIT_MS)
    assert [url for url in tab.requests if url.endswith("/api/events")] == [f"{watched.server.url}api/events"]
    page.evaluate(HIDE)
    assert agent(root, env, "/write behind.txt\none\n").returncode == 0
    # a function, not an expression: polling an expression evals it in the page, which its CSP forbids
    page.wait_for_function("() => state.queued.length > 0", timeout=WAIT_MS)  # the batch came, and waits
    expect(page.locator("#feed tbody tr")).to_have_count(1)
    expect(page.locator("#changes li")).to_have_count(1)
    page.evaluate(SHOW)
    expect(page.locator('#changes li[data-id="2"]')).to_contain_text("/write behind.txt", timeout=WAIT_MS)
    expect(page.locator("#feed tbody tr")).to_have_count(2, timeout=WAIT_MS)
    assert page.evaluate("state.queued.length") == 0
    tab.clean()


def test_the_clients_rows_keep_their_places_while_they_work_and_a_newcomer_comes_on_top(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    """The server lists the most recently active client first; the page does not move a working client's row each
    time another one asks something."""
    from playwright.sync_api import expect

    watched, root, env, _ = site
    page = watched.page
    rows = page.locator("#clients tbody tr")

    def order() -> list[str]:
        return rows.evaluate_all("rows => rows.map(row => row.dataset.client)")

    assert agent(root, env, "/write a.txt\none\n", "--client", "agent-a").returncode == 0
    expect(rows).to_have_count(1, timeout=WAIT_MS)
    assert agent(root, env, "/write b.txt\none\n", "--client", "agent-b").returncode == 0
    expect(rows).to_have_count(2, timeout=WAIT_MS)
    assert order() == ["agent-b", "agent-a"]
    assert agent(root, env, "/write a2.txt\ntwo\n", "--client", "agent-a").returncode == 0
    expect(page.locator('#clients tbody tr[data-client="agent-a"] td').nth(4)).to_have_text("2", timeout=WAIT_MS)
    assert order() == ["agent-b", "agent-a"]  # the server now lists agent-a first
    assert agent(root, env, "/write c.txt\none\n", "--client", "agent-c").returncode == 0
    expect(rows).to_have_count(3, timeout=WAIT_MS)
    assert order() == ["agent-c", "agent-b", "agent-a"]
    watched.clean()


OFFSCREEN = re.compile(r"\boffscreen\b")


def test_a_list_far_from_the_window_is_built_once_scrolled_to(
        site: tuple[Watched, Path, dict[str, str], Path]) -> None:
    """What comes for a box far from the window is kept, not built: with a window a hundred pixels high the feed's
    box is far below it, and its row is built, and drawn, once the box is scrolled to; the change sets' list, near
    the window, is built as its rows come."""
    from playwright.sync_api import expect

    watched, root, env, _ = site
    page = watched.page
    page.set_viewport_size({"width": 1280, "height": 100})
    box = page.locator("#feed-box")
    expect(box).to_have_class(OFFSCREEN, timeout=WAIT_MS)
    expect(page.locator("#changes")).not_to_have_class(OFFSCREEN)  # it begins within 200 pixels of the window
    assert agent(root, env, "/write far.txt\none\n").returncode == 0
    expect(page.locator('#changes li[data-id="1"]')).to_contain_text("/write far.txt", timeout=WAIT_MS)
    page.wait_for_function("() => state.feed.length === 1", timeout=WAIT_MS)  # the record came, as data
    rows = page.locator("#feed tbody tr")
    expect(rows).to_have_count(0)
    page.evaluate("document.getElementById('feed-box').scrollIntoView()")
    expect(box).not_to_have_class(OFFSCREEN, timeout=WAIT_MS)
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("far.txt")
    expect(rows.first).to_be_visible()
    page.evaluate("scrollTo(0, 0)")
    expect(box).to_have_class(OFFSCREEN, timeout=WAIT_MS)
    expect(page.locator('#changes li[data-id="1"]')).to_be_visible()
    watched.clean()
