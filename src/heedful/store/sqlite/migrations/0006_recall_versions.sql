-- A per-user version of the fact record, so that recall's in-memory index of one user (vectors,
-- times, states, entities) is refreshed only when that user's rows change, and only as much as
-- changed: new rows are appended, changed states re-read, rewritten statements rebuild it.
CREATE TABLE user_fact_versions (
    user_id   TEXT PRIMARY KEY,
    inserted  INTEGER NOT NULL DEFAULT 0,
    updated   INTEGER NOT NULL DEFAULT 0,
    rewritten INTEGER NOT NULL DEFAULT 0
);
INSERT INTO user_fact_versions (user_id, inserted) SELECT user_id, COUNT(*) FROM facts GROUP BY user_id;

CREATE TRIGGER facts_version_insert AFTER INSERT ON facts BEGIN
    INSERT INTO user_fact_versions (user_id, inserted) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET inserted = inserted + 1;
END;
CREATE TRIGGER facts_version_update AFTER UPDATE OF valid_to, superseded_by, expired_at, expired_reason ON facts
BEGIN
    UPDATE user_fact_versions SET updated = updated + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER facts_version_rewrite AFTER UPDATE OF statement, embedding, place ON facts BEGIN
    UPDATE user_fact_versions SET rewritten = rewritten + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER fact_entities_version_delete AFTER DELETE ON fact_entities BEGIN
    UPDATE user_fact_versions SET rewritten = rewritten + 1 WHERE user_id = old.user_id;
END;

-- One user's rows in insertion order: the index reads only the rows it has not seen.
CREATE INDEX facts_user_rows ON facts (user_id);
