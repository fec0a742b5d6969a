"""The web UI in a real browser: Playwright driving Debian's chromium against `heedful serve`.

Logs in with a key, sees a memory and where recall found it, forgets it, approves a rule held for
the user; screenshots of each page are saved under this test's temporary folder. Skips when
chromium or Playwright is not installed (Playwright's own browser download is never used).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from heedful.api import Heedful

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]  # fmt: skip

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
pytest.importorskip("fastapi", reason="the serve extra is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

from heedful.server.process import heedful_command, served  # noqa: E402


def test_log_in_see_forget_and_approve(tmp_path: Path) -> None:
    home, project, shots = tmp_path / "home", tmp_path / "project", tmp_path / "screenshots"
    project.mkdir()
    shots.mkdir()
    made = heedful_command("keys", "create", "--user", "alice", "--json", home=home)
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)["key"]
    with Heedful.open(home, embedder="hashing") as hf:
        hf.memory.add("alice", "I live in Porto", flush=True)
        held = hf.rules.learn("alice", "always run ruff before committing", project=str(project), proposed_by="mcp")
        checked = hf.rules.learn("alice", "never push to main", project=str(project)).actions[0].rule_id
    rule_id = held.actions[0].rule_id
    assert rule_id is not None

    with served(home, embedder="hashing", rate=1000, burst=1000) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{url}/ui/memories")
            assert page.url.endswith("/ui/login")  # not logged in: sent to the login page
            page.fill("input[name=key]", "hfk.k-000000000000.wrong")
            page.click("button[type=submit]")
            assert "unknown or revoked" in page.inner_text("main")
            page.screenshot(path=str(shots / "login.png"))

            page.fill("input[name=key]", key)
            page.click("button[type=submit]")
            page.wait_for_url("**/ui/memories")
            cookie = next(c for c in page.context.cookies() if c["name"] == "heedful_session")
            assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
            assert "The user lives in Porto" in page.inner_text("table.memories.current")

            page.fill("input[name=q]", "where does the user live")
            page.click("form[action='/ui/memories'] button")
            assert "vector #1" in page.inner_text("table.recall") or "keyword #1" in page.inner_text("table.recall")
            page.screenshot(path=str(shots / "memories.png"), full_page=True)

            page.click("table.memories.current a")
            assert "What it replaced" in page.inner_text("main")
            page.screenshot(path=str(shots / "memory-history.png"), full_page=True)

            # A form without its CSRF token changes nothing.
            refused = page.request.post(f"{url}/ui/memory/forget", form={"text": "forget that I live in Porto"})
            assert refused.status == 403
            page.goto(f"{url}/ui/memories")
            assert "Porto" in page.inner_text("table.memories.current")

            page.fill("form[action='/ui/memory/forget'] input[name=text]", "forget that I live in Porto")
            page.click("form[action='/ui/memory/forget'] button")
            page.wait_for_url("**/ui/memories?notice=forgotten")
            page.screenshot(path=str(shots / "forgotten.png"), full_page=True)
            assert "The user lives in Porto" not in page.inner_text("table.memories.current")  # only the request
            assert "The user lives in Porto" in page.inner_text("table.memories.forgotten")

            page.goto(f"{url}/ui/rules")
            waiting = page.locator(f"table.rules.waiting tr[data-id='{rule_id}']")
            assert "always run ruff before committing" in waiting.inner_text()
            page.screenshot(path=str(shots / "rules-waiting.png"), full_page=True)
            waiting.locator("form[action$='/approve'] button").click()
            page.wait_for_url("**/ui/rules?notice=approved")
            assert page.locator("table.rules.waiting").count() == 0
            row = page.locator(f"table.rules tr[data-id='{rule_id}']").inner_text()
            assert "needs_user" not in row and ("checked" in row or "guidance" in row)
            page.screenshot(path=str(shots / "rules.png"), full_page=True)

            page.goto(f"{url}/ui/rules/{rule_id}")
            assert "Versions" in page.inner_text("main") and "approved by the user" in page.inner_text("main")
            page.screenshot(path=str(shots / "rule.png"), full_page=True)

            page.goto(f"{url}/ui/rules/{checked}")
            page.fill("textarea[name=trial]", "git push origin main")
            page.click("form[method=get] button")
            assert page.inner_text("#verdict").startswith("violated")
            page.screenshot(path=str(shots / "rule-check.png"), full_page=True)

            page.goto(f"{url}/ui/log")
            assert "What was blocked" in page.inner_text("main")
            page.screenshot(path=str(shots / "log.png"), full_page=True)
        finally:
            browser.close()

    with Heedful.open(home, embedder="hashing") as hf:  # the browser's changes are in the store
        assert hf.rules.get("alice", rule_id).status in ("checked", "guidance")
        assert not [f for f in hf.memory.list("alice", kinds=["fact"]) if "Porto" in f.statement]
    assert {p.name for p in shots.iterdir()} >= {"login.png", "memories.png", "forgotten.png", "rules.png"}


def test_api_docs_page_renders_with_no_network(tmp_path: Path) -> None:
    """`/docs` draws Swagger UI from the package's own files: every request off the server is refused."""
    home, shots = tmp_path / "home", tmp_path / "screenshots"
    shots.mkdir()
    outside: list[str] = []
    with served(home, embedder="hashing", rate=1000, burst=1000) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})

            def only_the_server(route: sync_api.Route) -> None:
                if route.request.url.startswith(url):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            page.route("**/*", only_the_server)
            page.goto(f"{url}/docs")
            page.wait_for_selector(".swagger-ui .opblock", timeout=15_000)  # the operations were drawn
            assert "/v1/rules/learn" in page.inner_text(".swagger-ui")
            page.screenshot(path=str(shots / "docs.png"), full_page=False)
        finally:
            browser.close()
    assert outside == []
