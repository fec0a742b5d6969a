-- Store-wide settings, such as the embedding model and dimension the vectors were made with.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The append-only guarantees: a trigger made with this function refuses the statement with the
-- message given as its argument, e.g.
--   CREATE TRIGGER t BEFORE DELETE ON x FOR EACH ROW EXECUTE FUNCTION heedful_refuse('rows are kept');
CREATE FUNCTION heedful_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
