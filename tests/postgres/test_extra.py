"""Without the postgres extra, opening the PostgreSQL store is one clear error, not a traceback."""

from __future__ import annotations

import subprocess
import sys


def test_without_the_extra_the_store_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "try:\n    import heedful.store.postgres\nexcept Exception as exc:\n    print(type(exc).__name__, exc)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert (
        done.stdout.strip()
        == "StoreError the PostgreSQL store needs the postgres extra: pip install 'heedful[postgres]'"
    )
