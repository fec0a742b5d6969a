"""The Claude Code plugin layout: valid manifests, and the same hook events as `heedful install`."""

from __future__ import annotations

import json
from pathlib import Path

from heedful.integrations.install import EVENTS, portable_command

PLUGIN = Path(__file__).resolve().parents[2] / "plugin"


def test_marketplace_and_plugin_manifests() -> None:
    market = json.loads((PLUGIN / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    root = PLUGIN / entry["source"]
    manifest = json.loads((root / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == entry["name"] == "heedful"
    hooks = json.loads((root / "hooks" / "hooks.json").read_text())["hooks"]
    assert tuple(hooks) == EVENTS["claude-code"]
    for event, groups in hooks.items():
        for group in groups:
            for handler in group["hooks"]:
                # The same commands as a project install; SessionStart says so when heedful-hook is missing.
                assert handler["type"] == "command" and handler["command"] == portable_command("claude-code", event)
    servers = json.loads((root / ".mcp.json").read_text())["mcpServers"]
    assert servers["heedful"] == {"command": "heedful", "args": ["mcp"]}
