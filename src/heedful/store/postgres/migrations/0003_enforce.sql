-- Enforcement in agents: sessions, user turns, recorded tool events and the judgment log.
CREATE TABLE enforce_sessions (
    user_id      TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    platform     TEXT NOT NULL,
    project      TEXT,
    current_turn TEXT,
    turn_count   INTEGER NOT NULL DEFAULT 0,
    last_prompt  TEXT,
    last_reply   TEXT,
    last_reply_at TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (user_id, session_id)
);
CREATE INDEX enforce_sessions_recent ON enforce_sessions (user_id, updated_at);

-- One row per user turn: the adopted library version, the selected rules and the repair budget used.
CREATE TABLE enforce_turns (
    user_id         TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    turn_id         TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    library_version INTEGER NOT NULL,
    prompt          TEXT,
    selected        TEXT NOT NULL DEFAULT '[]',
    revisions       INTEGER NOT NULL DEFAULT 0,
    started_at      TEXT NOT NULL,
    PRIMARY KEY (user_id, session_id, turn_id)
);

-- Every tool event of a session (what ran, what was written), in order.
CREATE TABLE enforce_events (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    turn_id     TEXT NOT NULL,
    kind        TEXT NOT NULL,
    tool        TEXT NOT NULL DEFAULT '',
    command     TEXT,
    path        TEXT,
    created     INTEGER NOT NULL DEFAULT 0,
    ok          INTEGER NOT NULL DEFAULT 1,
    tool_use_id TEXT,
    at          TEXT NOT NULL
);
CREATE INDEX enforce_events_session ON enforce_events (user_id, session_id, id);

-- What a path looked like before a tool wrote it (did it exist?), keyed by the tool call.
CREATE TABLE enforce_pending (
    user_id     TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    tool_use_id TEXT NOT NULL,
    existed     TEXT NOT NULL DEFAULT '{}',
    at          TEXT NOT NULL,
    PRIMARY KEY (user_id, session_id, tool_use_id)
);

-- Judgments that matter (violated, unknown, cleared) and every intervention, per session.
CREATE TABLE enforce_log (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    turn_id    TEXT NOT NULL,
    stage      TEXT NOT NULL,
    candidate  TEXT NOT NULL DEFAULT '',
    rule_id    TEXT,
    rule_text  TEXT,
    kind       TEXT,
    result     TEXT,
    action     TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT '',
    quotes     TEXT NOT NULL DEFAULT '[]',
    detail     TEXT NOT NULL DEFAULT '',
    at         TEXT NOT NULL
);
CREATE INDEX enforce_log_session ON enforce_log (user_id, session_id, id);
CREATE INDEX enforce_log_turn ON enforce_log (user_id, session_id, turn_id, rule_id);
