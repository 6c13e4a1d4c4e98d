-- BrakingLab schema. Times are UTC text in the fixed-width form
-- 2006-01-02T15:04:05.000Z so they sort as strings. User-owned records that
-- can be deleted carry deleted_at (soft delete: NULL means live).

CREATE TABLE users (
    id            TEXT PRIMARY KEY,            -- also the JWT subject
    username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    display_name  TEXT NOT NULL,
    password_hash TEXT NOT NULL,               -- bcrypt
    created_at    TEXT NOT NULL
);

CREATE TABLE tracks (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    country           TEXT NOT NULL,
    length_m          REAL NOT NULL,
    sector1_end_m     REAL NOT NULL,
    sector2_end_m     REAL NOT NULL
);

CREATE TABLE track_corners (
    track_id  TEXT NOT NULL REFERENCES tracks(id),
    idx       INTEGER NOT NULL,
    name      TEXT NOT NULL,
    apex_m    REAL NOT NULL,
    direction TEXT NOT NULL,
    PRIMARY KEY (track_id, idx)
);

CREATE TABLE cars (
    id    TEXT PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE,
    class TEXT NOT NULL,
    fuel_tank_l REAL NOT NULL
);

CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id),
    sim          TEXT NOT NULL,
    track_id     TEXT NOT NULL REFERENCES tracks(id),
    car_id       TEXT NOT NULL REFERENCES cars(id),
    type         TEXT NOT NULL CHECK (type IN ('practice', 'qualifying', 'race')),
    started_at   TEXT NOT NULL,
    weather      TEXT NOT NULL,
    track_temp_c REAL NOT NULL,
    air_temp_c   REAL NOT NULL,
    deleted_at   TEXT
);
CREATE INDEX sessions_user_started ON sessions(user_id, started_at DESC);

CREATE TABLE laps (
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    lap_number  INTEGER NOT NULL CHECK (lap_number > 0),
    lap_time_ms INTEGER NOT NULL CHECK (lap_time_ms > 0),
    s1_ms       INTEGER NOT NULL,
    s2_ms       INTEGER NOT NULL,
    s3_ms       INTEGER NOT NULL,
    valid       INTEGER NOT NULL CHECK (valid IN (0, 1)),
    fuel_used_l REAL NOT NULL,
    PRIMARY KEY (session_id, lap_number)
);

-- One row per lap: the telemetry package's binary encoding.
CREATE TABLE lap_telemetry (
    session_id TEXT NOT NULL,
    lap_number INTEGER NOT NULL,
    data       BLOB NOT NULL,
    PRIMARY KEY (session_id, lap_number),
    FOREIGN KEY (session_id, lap_number) REFERENCES laps(session_id, lap_number)
);

CREATE TABLE race_events (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id),
    name         TEXT NOT NULL,
    track_id     TEXT NOT NULL REFERENCES tracks(id),
    car_id       TEXT REFERENCES cars(id),
    sim          TEXT NOT NULL,
    starts_at    TEXT NOT NULL,
    duration_min INTEGER NOT NULL DEFAULT 0,
    laps         INTEGER NOT NULL DEFAULT 0,
    status       TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled')),
    notes        TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    deleted_at   TEXT
);
CREATE INDEX race_events_user ON race_events(user_id, starts_at);

CREATE TABLE race_preparations (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users(id),
    race_event_id TEXT NOT NULL UNIQUE REFERENCES race_events(id),
    body          TEXT NOT NULL, -- JSON
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE TABLE readiness_assessments (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users(id),
    race_event_id TEXT NOT NULL REFERENCES race_events(id),
    body          TEXT NOT NULL, -- JSON
    created_at    TEXT NOT NULL
);

CREATE TABLE notepads (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id),
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    tags       TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
);

CREATE TABLE track_notes (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id),
    track_id     TEXT NOT NULL REFERENCES tracks(id),
    corner_index INTEGER,
    note         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    deleted_at   TEXT
);

CREATE TABLE coaching_reports (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id),
    session_id TEXT NOT NULL REFERENCES sessions(id),
    body       TEXT NOT NULL, -- JSON, the report as saved
    created_at TEXT NOT NULL
);

CREATE TABLE race_strategies (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users(id),
    track_id      TEXT NOT NULL REFERENCES tracks(id),
    race_event_id TEXT REFERENCES race_events(id),
    body          TEXT NOT NULL, -- JSON
    created_at    TEXT NOT NULL
);
