-- Learned rules: every revision kept, immutable library versions, and per-turn pins.
CREATE TABLE rules (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    scope      TEXT NOT NULL CHECK (scope IN ('global', 'project')),
    project    TEXT,
    created_at TEXT NOT NULL,
    CHECK ((scope = 'project') = (project IS NOT NULL))
);
CREATE INDEX rules_user_scope ON rules (user_id, scope, project);

-- One row per revision; rows are never rewritten or deleted.
CREATE TABLE rule_versions (
    rule_id       TEXT NOT NULL REFERENCES rules(id),
    version       INTEGER NOT NULL,
    user_id       TEXT NOT NULL,
    text          TEXT NOT NULL,
    condition     TEXT,
    exceptions    TEXT NOT NULL DEFAULT '[]',
    evidence      TEXT NOT NULL DEFAULT '[]',
    status        TEXT NOT NULL CHECK (status IN
                    ('checked', 'guidance', 'inactive', 'retracted', 'needs_user', 'superseded')),
    check_spec    TEXT,
    op            TEXT NOT NULL,
    reason        TEXT NOT NULL DEFAULT '',
    source_text   TEXT NOT NULL DEFAULT '',
    supersedes    TEXT,
    superseded_by TEXT,
    library_version INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    embedding     BYTEA,
    PRIMARY KEY (rule_id, version)
);
CREATE INDEX rule_versions_user ON rule_versions (user_id, rule_id);
CREATE TRIGGER rule_versions_immutable BEFORE UPDATE ON rule_versions
    FOR EACH ROW EXECUTE FUNCTION heedful_refuse('rule versions are immutable: add a new version instead');
CREATE TRIGGER rule_versions_no_delete BEFORE DELETE ON rule_versions
    FOR EACH ROW EXECUTE FUNCTION heedful_refuse('rule versions are never deleted');
CREATE TRIGGER rule_versions_no_truncate BEFORE TRUNCATE ON rule_versions
    FOR EACH STATEMENT EXECUTE FUNCTION heedful_refuse('rule versions are never deleted');

-- A library version is an immutable snapshot: which revision of each rule it holds.
CREATE TABLE rule_library_versions (
    user_id      TEXT NOT NULL,
    version      INTEGER NOT NULL,
    base_version INTEGER NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('learn', 'edit', 'retract', 'undo', 'approve')),
    summary      TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    undone_by    INTEGER,
    PRIMARY KEY (user_id, version)
);
CREATE TABLE rule_library_entries (
    user_id         TEXT NOT NULL,
    library_version INTEGER NOT NULL,
    rule_id         TEXT NOT NULL REFERENCES rules(id),
    rule_version    INTEGER NOT NULL,
    PRIMARY KEY (user_id, library_version, rule_id)
);
CREATE TRIGGER rule_library_entries_immutable BEFORE UPDATE ON rule_library_entries
    FOR EACH ROW EXECUTE FUNCTION heedful_refuse('library versions are immutable');

-- The library version adopted at the start of a user turn, kept for the whole turn.
CREATE TABLE rule_turn_pins (
    user_id         TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    turn            TEXT NOT NULL,
    library_version INTEGER NOT NULL,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (user_id, session_id, turn)
);
