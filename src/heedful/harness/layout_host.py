"""Runs a harness layout file in its own process: one JSON request per line on stdin, one answer per line.

    python -I -S layout_host.py LAYOUT_FILE

Standard library only, and started with `-I -S` (no environment, no site-packages) inside the
sandbox of `heedful.harness.sandbox`, so the layout code sees nothing of heedful but the items.
A request is {"items": [...], "limits": {...}} (choose, then render the chosen) or {"render": [...]}.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from typing import Any


def load(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("candidate_layout", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def answer(module: Any, request: dict[str, Any]) -> dict[str, Any]:
    if "render" in request:
        return {"lines": [module.render(item) for item in request["render"]]}
    items = request["items"]
    chosen = module.choose(items, request["limits"])
    rendered = {heading: [module.render(items[i]) for i in positions] for heading, positions in chosen.items()}
    return {"chosen": chosen, "rendered": rendered, "policy": module.POLICY, "headings": module.HEADINGS}


def main() -> None:
    try:
        module = load(sys.argv[1])
    except Exception as exc:  # the candidate's code: report what failed, as one line
        print(json.dumps({"error": f"loading the layout: {type(exc).__name__}: {exc}"}), flush=True)
        return
    for line in sys.stdin:
        try:
            reply = answer(module, json.loads(line))
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
