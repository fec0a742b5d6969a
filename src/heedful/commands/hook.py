"""`heedful hook claude-code|codex|gemini|cursor`: run one hook event (the platform's payload on stdin).

The installed hooks call `python -m heedful.hookmain <platform>` directly, which starts faster;
this command is the same handler under the CLI's name.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Handle one agent hook event: reads the platform's payload on stdin, always exits 0.", no_args_is_help=True
)


@app.command("claude-code")
def claude_code() -> None:
    """Claude Code: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse(Failure), Stop."""
    from heedful.hookmain import main

    raise typer.Exit(main(["claude-code"]))


@app.command("codex")
def codex() -> None:
    """Codex: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop (Stop always prints JSON)."""
    from heedful.hookmain import main

    raise typer.Exit(main(["codex"]))


@app.command("gemini")
def gemini() -> None:
    """Gemini CLI: SessionStart, BeforeAgent, BeforeTool, AfterTool, AfterAgent (always prints JSON)."""
    from heedful.hookmain import main

    raise typer.Exit(main(["gemini"]))


@app.command("cursor")
def cursor() -> None:
    """Cursor: sessionStart, beforeSubmitPrompt, beforeShellExecution, pre/postToolUse, afterAgentResponse, stop."""
    from heedful.hookmain import main

    raise typer.Exit(main(["cursor"]))
