"""Lazy patterns built from the cached code of an earlier process are the very patterns `re.compile` makes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from heedful.rules import lazy_regex

# Every lazy pattern the learner's and the hook's modules hold, each built as `lazy` builds it and compared with
# `re.compile` (`==` on patterns compares their flags, their text and their code).
PROBE = """
import json, re, sys
import heedful.enforce.engine, heedful.rules.compile, heedful.rules.facets, heedful.rules.interpret
import heedful.rules.vocabulary, heedful.rules.learn_steps
from heedful.rules import lazy_regex

def found(value, out):
    if isinstance(value, lazy_regex._LazyPattern):
        out[id(value)] = value
    elif isinstance(value, (tuple, list)):
        for item in value:
            found(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            found(item, out)

patterns = {}
for name, module in list(sys.modules.items()):
    if name.startswith("heedful."):
        for value in list(vars(module).values()):
            found(value, patterns)
same = 0
for pattern in patterns.values():
    made, plain = pattern.search.__self__, re.compile(pattern.pattern, pattern._flags)
    shape = [(p.flags, p.groups, p.groupindex) for p in (made, plain)]
    same += made == plain and shape[0] == shape[1]
distinct = len({(p.pattern, int(p._flags)) for p in patterns.values()})  # two modules may hold the same one
print(json.dumps({"patterns": len(patterns), "distinct": distinct, "same": same, "added": lazy_regex._CACHE._added}))
"""


def _probe(cache: Path) -> dict[str, int]:
    env = {**os.environ, "HEEDFUL_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout)


def test_patterns_built_from_the_cached_code_are_the_compiled_patterns(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _probe(cache)  # compiles each pattern and keeps its code at exit
    assert first["patterns"] > 200 and first["same"] == first["patterns"] and first["added"] == first["distinct"]
    [kept] = list(cache.glob("regex-*.marshal"))
    stamp = kept.stat().st_mtime_ns
    second = _probe(cache)  # builds each from the kept code: nothing to compile, nothing written
    assert second == {**first, "added": 0}
    assert kept.stat().st_mtime_ns == stamp and list(cache.iterdir()) == [kept]


def test_a_damaged_cache_file_means_compiling_as_re_does(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _probe(cache)
    [kept] = list(cache.glob("regex-*.marshal"))
    kept.write_bytes(b"\x00not marshal data")
    again = _probe(cache)
    assert again["same"] == again["patterns"] and again["added"] == again["distinct"]  # compiled, and kept anew
    assert _probe(cache)["added"] == 0


def test_damaged_code_is_compiled_afresh_and_bad_patterns_fail_where_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    cache = lazy_regex._CodeCache()
    pattern = r"\bnever (?P<verb>push|merge)\b"
    entry = lazy_regex._code_of(pattern, re.I)
    cache._entries, cache._path = {(pattern, int(re.I)): (*entry[:4], b"\xff\xff\xff\xff")}, tmp_path / "cache" / "x"
    assert cache.compiled(pattern, re.I) == re.compile(pattern, re.I)  # `_sre` refuses the code: compiled again
    with pytest.raises(re.error):
        cache.compiled(r"(unclosed", 0)
    cache.save()
    assert (tmp_path / "cache" / "x").exists()


def test_the_command_table_read_back_is_the_parsed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tomllib

    from heedful.rules import vocabulary

    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    data = (Path(vocabulary.__file__).parent / "data" / "commands.toml").read_bytes()
    parsed = tomllib.loads(data.decode())
    assert vocabulary._parsed(data) == parsed  # parsed, and kept
    [kept] = list((tmp_path / "cache").glob("commands-*.marshal"))
    assert vocabulary._parsed(data) == parsed  # read back
    kept.write_bytes(b"\x00damaged")
    assert vocabulary._parsed(data) == parsed  # parsed again, and kept anew
    assert vocabulary._parsed(data + b"\n# changed\n") == parsed and len(list((tmp_path / "cache").iterdir())) == 2
