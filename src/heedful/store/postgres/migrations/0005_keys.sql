-- API keys for `heedful serve`. Only a hash of each key's secret is kept; the key itself is shown
-- once, when it is created. A key is never rewritten or deleted: revoking it adds a row below.
CREATE TABLE api_keys (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    user_id      TEXT NOT NULL,
    secret_hash  TEXT NOT NULL,
    admin        INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
    label        TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX api_keys_user ON api_keys (user_id);
CREATE TRIGGER api_keys_immutable BEFORE UPDATE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION heedful_refuse('API keys are immutable: revoke a key instead');
CREATE TRIGGER api_keys_no_delete BEFORE DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION heedful_refuse('API keys are never deleted: revoke a key instead');
CREATE TRIGGER api_keys_no_truncate BEFORE TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION heedful_refuse('API keys are never deleted: revoke a key instead');

CREATE TABLE api_key_revocations (
    key_id      TEXT PRIMARY KEY REFERENCES api_keys (id),
    revoked_at  TEXT NOT NULL,
    reason      TEXT
);
CREATE TRIGGER api_key_revocations_immutable BEFORE UPDATE ON api_key_revocations
    FOR EACH ROW EXECUTE FUNCTION heedful_refuse('a revocation is final');
CREATE TRIGGER api_key_revocations_no_delete BEFORE DELETE ON api_key_revocations
    FOR EACH ROW EXECUTE FUNCTION heedful_refuse('a revocation is final');
CREATE TRIGGER api_key_revocations_no_truncate BEFORE TRUNCATE ON api_key_revocations
    FOR EACH STATEMENT EXECUTE FUNCTION heedful_refuse('a revocation is final');
