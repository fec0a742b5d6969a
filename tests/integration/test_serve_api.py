"""`heedful serve` over real HTTP: a uvicorn child process on a free loopback port, a real SQLite home,
keys made by the real `heedful keys` command, and answers compared with the CLI's `--json`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from pg_backend import give_home_a_database

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
from heedful.server.process import heedful_command, served  # noqa: E402  (needs the serve extra)

Client = Any


@dataclass
class Service:
    url: str
    home: Path
    project: Path
    keys: dict[str, str]  # name -> key

    def client(self, key: str | None, **headers: str) -> Client:
        auth = {"Authorization": f"Bearer {self.keys[key]}"} if key else {}
        return httpx.Client(base_url=self.url, headers={**auth, **headers}, timeout=60)

    def cli(self, *args: str) -> Any:
        done = heedful_command(*args, "--json", home=self.home)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


def make_key(home: Path, user: str, *extra: str) -> dict[str, Any]:
    done = heedful_command("keys", "create", "--user", user, *extra, "--json", home=home)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    root = tmp_path_factory.mktemp("serve")
    home, project = root / "home", root / "project"
    project.mkdir()
    give_home_a_database(home)  # the PostgreSQL test pass: one database for the module's server
    keys = {name: make_key(home, user, *extra)["key"] for name, user, extra in (
        ("alice", "alice", ()), ("bob", "bob", ()), ("admin", "root", ("--admin",)))}  # fmt: skip
    with served(home, embedder="hashing", rate=1000, burst=1000) as url:
        yield Service(url, home, project, keys)


def test_openapi_names_every_endpoint(service: Service) -> None:
    paths = httpx.get(f"{service.url}/openapi.json").json()["paths"]
    for path in ("/v1/memory/messages", "/v1/memory/recall", "/v1/memory", "/v1/memory/{fact_id}/history",
                 "/v1/memory/{fact_id}/correct", "/v1/memory/{fact_id}", "/v1/memory/undo", "/v1/memory/forget",
                 "/v1/memory/context", "/v1/rules/learn", "/v1/rules", "/v1/rules/{rule_id}",
                 "/v1/rules/{rule_id}/history", "/v1/rules/{rule_id}/approve", "/v1/rules/{rule_id}/retract",
                 "/v1/rules/undo", "/v1/rules/select", "/v1/rules/check", "/v1/log"):  # fmt: skip
        assert path in paths
    docs = httpx.get(f"{service.url}/docs")
    assert docs.status_code == 200 and "cdn" not in docs.text.lower()  # the page's files are served locally
    assert httpx.get(f"{service.url}/docs-assets/swagger-ui-bundle.js").status_code == 200
    unknown = httpx.get(f"{service.url}/v1/nothing-here")
    assert unknown.status_code == 404 and set(unknown.json()) == {"error"}


def test_no_valid_key_is_401_and_says_the_same_whatever_was_sent(service: Service) -> None:
    answers = []
    for authorization in (None, "Basic abc", "Bearer", "Bearer nonsense", "Bearer hfk.k-000000000000.secret",
                          "Bearer " + service.keys["alice"][:-2] + "xx"):  # fmt: skip
        headers = {"Authorization": authorization} if authorization else {}
        response = httpx.get(f"{service.url}/v1/memory", headers=headers)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        answers.append(response.json())
    assert all(answer == answers[0] for answer in answers) and "\n" not in answers[0]["error"]


def test_memory_end_to_end_matches_the_cli(service: Service) -> None:
    with service.client("alice") as api:
        added = api.post("/v1/memory/messages", json={"text": "I live in Porto", "flush": True})
        assert added.status_code == 200, added.text
        assert set(added.json()) == {"message_ids", "events", "redactions", "buffered"}
        fact_id = added.json()["events"][0]["fact_id"]
        listed = api.get("/v1/memory").json()
        assert listed == service.cli("memory", "list", "--user", "alice")
        recalled = api.post("/v1/memory/recall", json={"query": "where does the user live", "explain": True}).json()
        assert recalled["items"][0]["id"] == fact_id and isinstance(recalled["items"][0]["routes"], dict)
        assert "analysis" in recalled
        corrected = api.post(f"/v1/memory/{fact_id}/correct", json={"text": "The user lives in Lisbon"}).json()
        assert corrected["events"][0]["op"] in ("supersede", "correct", "update", "add")
        history = api.get(f"/v1/memory/{fact_id}/history").json()
        assert history == service.cli("memory", "history", fact_id, "--user", "alice")
        assert history["fact"]["state"] == "superseded"
        current = [row for row in api.get("/v1/memory").json() if row["state"] == "current"]
        assert [row["text"] for row in current] == ["The user lives in Lisbon"]
        deleted = api.delete(f"/v1/memory/{current[0]['id']}").json()
        assert deleted["events"][0]["fact_id"] == current[0]["id"]
        assert api.get("/v1/memory").json() == []
        undone = api.post("/v1/memory/undo").json()
        assert undone["undone"] and [r["text"] for r in api.get("/v1/memory").json()] == ["The user lives in Lisbon"]
        forgotten = api.post("/v1/memory/forget", json={"text": "forget that I live in Lisbon"}).json()
        assert {event["kind"] for event in forgotten["events"]} == {"tombstone", "fact"}
        everything = api.get("/v1/memory", params={"all": "true"}).json()
        assert {"superseded", "forgotten"} <= {row["state"] for row in everything}
        context = api.post("/v1/memory/context", json={"question": "where do I live?"}).json()
        assert set(context) >= {"harness", "question", "text", "forgotten"}


def test_rules_end_to_end_matches_the_cli(service: Service) -> None:
    project = str(service.project)
    with service.client("alice") as api:
        learned = api.post("/v1/rules/learn", json={"text": "never push to main", "project": project})
        assert learned.status_code == 200, learned.text
        assert learned.json()["decision"] == "persist"
        rule_id = learned.json()["actions"][0]["rule_id"]
        assert api.get("/v1/rules").json() == service.cli("rules", "list", "--user", "alice")
        shown = api.get(f"/v1/rules/{rule_id}").json()
        assert shown == service.cli("rules", "show", rule_id, "--user", "alice")
        assert shown["evidence"] == ["never push to main"] and shown["check"] is not None
        evidence = {"action": {"tool": "Bash", "command": "git push origin main"}}
        checked = api.post("/v1/rules/check", json={"stage": "pre_action", "evidence": evidence, "project": project})
        assert checked.json()["blocked"] is True and checked.json()["judgments"][0]["rule_id"] == rule_id
        selected = api.post("/v1/rules/select", json={"task": "push my branch", "project": project}).json()
        assert rule_id in [check["rule_id"] for check in selected["checks"]]
        edited = api.patch(f"/v1/rules/{rule_id}", json={"text": "never push to main or master"}).json()
        assert edited["rule"]["version"] == 2
        versions = api.get(f"/v1/rules/{rule_id}/history").json()
        assert versions == service.cli("rules", "history", rule_id, "--user", "alice") and len(versions) == 2
        retracted = api.post(f"/v1/rules/{rule_id}/retract").json()
        assert retracted["rule"]["status"] == "retracted"
        undone = api.post("/v1/rules/undo").json()
        assert set(undone) == {"undone", "library_version"}
        assert api.get(f"/v1/rules/{rule_id}").json()["status"] != "retracted"


def test_a_rule_held_for_approval_is_approved_over_http(service: Service) -> None:
    with Heedful.open(service.home, embedder="hashing") as hf:  # the MCP channel proposes; only the user approves
        held = hf.rules.learn("alice", "always run ruff before committing", project=str(service.project),
                              proposed_by="mcp")  # fmt: skip
    rule_id = held.actions[0].rule_id
    with service.client("alice") as api:
        assert api.get(f"/v1/rules/{rule_id}").json()["status"] == "needs_user"
        approved = api.post(f"/v1/rules/{rule_id}/approve")
        assert approved.status_code == 200, approved.text
        assert approved.json()["rule"]["status"] in ("checked", "guidance")
        again = api.post(f"/v1/rules/{rule_id}/approve")
        assert again.status_code == 422 and "nothing waits" in again.json()["error"]


def test_log_matches_the_cli_and_an_unknown_session_is_404(service: Service) -> None:
    with service.client("alice") as api:
        assert api.get("/v1/log").json() == service.cli("log", "--user", "alice")
        missing = api.get("/v1/log", params={"session": "nope"})
        assert missing.status_code == 404 and "no such session" in missing.json()["error"]


def test_a_key_never_reaches_another_users_records(service: Service) -> None:
    with service.client("alice") as alice, service.client("bob") as bob:
        added = alice.post("/v1/memory/messages", json={"text": "My favourite colour is green", "flush": True})
        fact_id = added.json()["events"][0]["fact_id"]
        learned = alice.post("/v1/rules/learn", json={"text": "never use sudo", "project": str(service.project)})
        rule_id = learned.json()["actions"][0]["rule_id"]
        before = alice.get("/v1/memory", params={"all": "true"}).json()
        assert bob.get("/v1/memory").json() == []
        for real, made_up in ((fact_id, "f-000000000000"), (rule_id, "r-000000000000")):
            for method, path, body in (("GET", "/v1/memory/{}/history", None),
                                       ("POST", "/v1/memory/{}/correct", {"text": "It is blue"}),
                                       ("DELETE", "/v1/memory/{}", None), ("GET", "/v1/rules/{}", None),
                                       ("GET", "/v1/rules/{}/history", None), ("POST", "/v1/rules/{}/retract", None),
                                       ("PATCH", "/v1/rules/{}", {"text": "use sudo"})):  # fmt: skip
                theirs = bob.request(method, path.format(real), json=body)
                unknown = bob.request(method, path.format(made_up), json=body)
                assert theirs.status_code == unknown.status_code == 404
                assert theirs.json()["error"].replace(real, "ID") == unknown.json()["error"].replace(made_up, "ID")
        # Naming another user is refused alike whether that user exists or not.
        named = bob.get("/v1/memory", headers={"X-Heedful-User": "alice"})
        nobody = bob.get("/v1/memory", headers={"X-Heedful-User": "nobody-at-all"})
        assert named.status_code == nobody.status_code == 403 and named.json() == nobody.json()
        assert alice.get("/v1/memory", params={"all": "true"}).json() == before
        assert alice.get(f"/v1/rules/{rule_id}").json()["status"] == "checked"


def test_an_admin_key_acts_for_the_user_it_names(service: Service) -> None:
    with service.client("admin", **{"X-Heedful-User": "carol"}) as admin:
        added = admin.post("/v1/memory/messages", json={"text": "I work at Acme as a nurse", "flush": True})
        assert added.status_code == 200
        assert admin.get("/v1/whoami").json() == {"key_id": admin.get("/v1/whoami").json()["key_id"],
                                                  "key_user": "root", "admin": True, "user": "carol"}  # fmt: skip
    with service.client("admin") as own:
        assert own.get("/v1/memory").json() == []  # its own user, not carol
        carol = own.get("/v1/memory", headers={"X-Heedful-User": "carol"}).json()
        assert [row["text"] for row in carol] and all("Acme" in row["text"] for row in carol)
        bad = own.get("/v1/memory", headers={"X-Heedful-User": "c" * 201})
        assert bad.status_code == 422
    with service.client("alice") as alice:
        assert all("Acme" not in row["text"] for row in alice.get("/v1/memory", params={"all": "true"}).json())


def test_a_revoked_key_is_refused_from_the_next_request(service: Service) -> None:
    made = make_key(service.home, "dave")
    with httpx.Client(base_url=service.url, headers={"Authorization": f"Bearer {made['key']}"}) as dave:
        assert dave.get("/v1/memory").status_code == 200
        revoked = heedful_command("keys", "revoke", made["id"], "--json", home=service.home)
        assert revoked.returncode == 0 and json.loads(revoked.stdout)["revoked_at"]
        assert dave.get("/v1/memory").status_code == 401
    again = heedful_command("keys", "revoke", made["id"], home=service.home)
    assert again.returncode == 2 and "already revoked" in again.stderr
    listed = service.cli("keys", "list", "--user", "dave")
    assert listed[0]["revoked_at"] and "key" not in listed[0] and "secret_hash" not in listed[0]


# (method, path, JSON body, expected status): one bad request per endpoint; bob never adds anything.
BAD_INPUT = [
    ("POST", "/v1/memory/messages", {"text": ""}, 422),
    ("POST", "/v1/memory/messages", {"text": "hi", "messages": [{"text": "ho"}]}, 422),
    ("POST", "/v1/memory/messages", {"text": "hi", "at": "not a time"}, 422),
    ("POST", "/v1/memory/recall", {"query": "x", "limit": 0}, 422),
    ("GET", "/v1/memory?kind=nonsense", None, 422),
    ("GET", "/v1/memory/f-000000000000/history", None, 404),
    ("POST", "/v1/memory/f-000000000000/correct", {"text": ""}, 422),
    ("DELETE", "/v1/memory/f-000000000000", None, 404),
    ("POST", "/v1/memory/undo", None, 404),
    ("POST", "/v1/memory/forget", {"text": "   "}, 422),
    ("POST", "/v1/memory/context", {"question": "x", "harness": "v99"}, 422),
    ("POST", "/v1/rules/learn", {"text": "never push to main", "project": "relative/path"}, 422),
    ("POST", "/v1/rules/learn", {"text": "x", "surprise": 1}, 422),
    ("GET", "/v1/rules?project=relative", None, 422),
    ("GET", "/v1/rules/r-000000000000", None, 404),
    ("GET", "/v1/rules/r-000000000000/history", None, 404),
    ("PATCH", "/v1/rules/r-000000000000", {"text": "x"}, 404),
    ("PATCH", "/v1/rules/r-000000000000", {"text": 3}, 422),
    ("POST", "/v1/rules/r-000000000000/approve", None, 404),
    ("POST", "/v1/rules/r-000000000000/retract", None, 404),
    ("POST", "/v1/rules/undo", None, 422),
    ("POST", "/v1/rules/select", {"task": ""}, 422),
    ("POST", "/v1/rules/check", {"stage": "later", "evidence": {}}, 422),
    ("POST", "/v1/rules/check", {"stage": "delivery", "evidence": []}, 422),
    ("GET", "/v1/log?limit=0", None, 422),
]


def snapshot(client: Client) -> tuple[Any, Any]:
    """Everything the user has: memories of every state and every rule."""
    return client.get("/v1/memory", params={"all": "true"}).json(), client.get(
        "/v1/rules", params={"all": "true"}
    ).json()


@pytest.mark.parametrize(("method", "path", "body", "status"), BAD_INPUT, ids=[f"{m} {p}" for m, p, *_ in BAD_INPUT])
def test_bad_input_is_one_line_and_changes_nothing(
    service: Service, method: str, path: str, body: Any, status: int
) -> None:
    with service.client("bob") as bob:
        before = snapshot(bob)
        response = bob.request(method, path, json=body)
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert error and "\n" not in error and len(error) < 300
        assert snapshot(bob) == before


def test_the_rate_limit_answers_429_with_retry_after_per_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    alice, bob = make_key(home, "alice")["key"], make_key(home, "bob")["key"]
    with served(home, embedder="hashing", rate=0.05, burst=3) as url:  # slow refill: a loaded machine still sees 429
        codes = [httpx.get(f"{url}/v1/memory", headers={"Authorization": f"Bearer {alice}"}) for _ in range(4)]
        assert [r.status_code for r in codes] == [200, 200, 200, 429]
        assert int(codes[-1].headers["retry-after"]) >= 1 and "rate limit" in codes[-1].json()["error"]
        assert httpx.get(f"{url}/v1/memory", headers={"Authorization": f"Bearer {bob}"}).status_code == 200
