/**
 * Tables the environment keeps inside every episode database, next to the domain's tables. Their names start with
 * `_finalstate_`, so grading never sees them.
 */
export const INTERNAL_PREFIX = '_finalstate_';

export const INTERNAL_SCHEMA_VERSION = 2;

export const INTERNAL_TABLES_SQL = `
CREATE TABLE _finalstate_episode (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  episode_id text NOT NULL,
  task_id text NOT NULL,
  task_sha256 text NOT NULL,
  clock timestamptz NOT NULL
);
CREATE TABLE _finalstate_sequences (
  name text PRIMARY KEY,
  prefix text NOT NULL,
  next_value bigint NOT NULL
);
CREATE TABLE _finalstate_tool_calls (
  call_index integer PRIMARY KEY CHECK (call_index >= 0),
  tool text NOT NULL,
  arguments jsonb NOT NULL,
  result jsonb,
  is_error boolean NOT NULL,
  message text
);
-- json, not jsonb: jsonb reorders keys, and the tool schemas' key order is part of the rendered prompt.
CREATE TABLE _finalstate_checkpoint (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  agent_turns integer NOT NULL,
  checkpoint json NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
`;
