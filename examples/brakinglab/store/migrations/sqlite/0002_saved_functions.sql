-- Saved functions (package saved of codemode-go): one row per name, with
-- its published mark, and one per version.
CREATE TABLE saved_function_names (
    owner     TEXT NOT NULL,
    name      TEXT NOT NULL,
    published INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (owner, name)
);

CREATE TABLE saved_functions (
    owner       TEXT NOT NULL,
    name        TEXT NOT NULL,
    version     INTEGER NOT NULL,
    description TEXT NOT NULL,
    code        TEXT NOT NULL,
    input       TEXT NOT NULL, -- JSON Schema
    output      TEXT NOT NULL DEFAULT '', -- JSON Schema, or empty
    tier        TEXT NOT NULL,
    uses        TEXT NOT NULL, -- JSON array of "ns.fn"
    created_at  TEXT NOT NULL, -- RFC 3339 with nanoseconds
    PRIMARY KEY (owner, name, version),
    FOREIGN KEY (owner, name) REFERENCES saved_function_names (owner, name) ON DELETE CASCADE
);
