"""The optimised graph's machine key names the processor without running a process where /proc/cpuinfo can."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.embed import minilm


def _no_process() -> str:
    raise AssertionError("platform.processor() runs `uname -p` in a process of its own")


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="a system without /proc/cpuinfo")
def test_the_features_in_proc_cpuinfo_name_the_processor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm.platform, "processor", _no_process)
    key = minilm._machine_key()
    assert key.startswith(f"{minilm.platform.machine()}  ") and len(key.split()) > 2  # the feature flags follow


def test_without_proc_cpuinfo_the_platform_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = open

    def no_cpuinfo(path: object, *args: object, **kwargs: object) -> object:
        if str(path) == "/proc/cpuinfo":
            raise FileNotFoundError(path)
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", no_cpuinfo)
    monkeypatch.setattr(minilm.platform, "processor", lambda: "arm")
    assert minilm._machine_key() == f"{minilm.platform.machine()} arm "
