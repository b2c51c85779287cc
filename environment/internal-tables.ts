import { EPISODE_GROUP_ROLE, INTERNALS_OWNER_ROLE } from './naming.js';
import { RETIRED_EPISODE_SQLSTATE, STALE_ATTEMPT_SQLSTATE } from './pg-faults.js';
import { ident } from './sql.js';

// Tables the environment keeps inside every episode database, next to the domain's tables. Their names start with
// INTERNAL_PREFIX (`_finalstate_`, in naming.ts), so grading never sees them.

export const INTERNAL_SCHEMA_VERSION = 5;

/**
 * Tool SQL runs as the episode role, in the same transaction as the runtime's record of the call, so the role itself
 * must not be able to write these tables (a forged record would be replayed on resume). They belong to
 * INTERNALS_OWNER_ROLE; the episode role may read its own records, and writes only through the SECURITY DEFINER
 * functions below, each of which first checks the runtime's recorder token against the hash stored at provisioning
 * (in a column the role cannot read). The token travels only as a bind parameter, so no statement text shows it.
 *
 * One live attempt per episode, by fencing: an attempt (a Temporal activity attempt, or a `finalstate run`) that opens
 * the database claims it with a lease token of its own, `<recorder token>.<random>`, and its attempt number
 * (`_finalstate_claim`); an older attempt number cannot claim over a newer one. Every writer checks that the token it
 * is given is the lease's, locking the episode row FOR SHARE until its transaction ends, so a claim waits for a write
 * in flight and every write after a claim by another attempt is refused (STALE_ATTEMPT_SQLSTATE). An attempt that
 * finishes retires the episode (`_finalstate_retire`) before it tears the database down: after that no attempt can
 * claim it (RETIRED_EPISODE_SQLSTATE), and a stale attempt can never retire it.
 */
export const INTERNAL_TABLES_SQL = `
CREATE TABLE _finalstate_episode (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  episode_id text NOT NULL,
  task_id text NOT NULL,
  task_sha256 text NOT NULL,
  clock timestamptz NOT NULL,
  recorder_sha256 bytea NOT NULL,
  lease_attempt integer NOT NULL DEFAULT 0,
  lease_sha256 bytea,
  retired boolean NOT NULL DEFAULT false
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
CREATE FUNCTION _finalstate_require_token(p_token text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM 1 FROM public._finalstate_episode WHERE lease_sha256 = sha256(convert_to(p_token, 'UTF8')) AND NOT retired FOR SHARE;
  IF FOUND THEN RETURN; END IF;
  IF NOT EXISTS (SELECT 1 FROM public._finalstate_episode WHERE recorder_sha256 = sha256(convert_to(split_part(p_token, '.', 1), 'UTF8'))) THEN
    RAISE EXCEPTION 'finalstate internal tables: the recorder token does not match; only the runtime writes them'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RAISE EXCEPTION 'finalstate internal tables: this attempt no longer holds the episode (a newer attempt claimed it, or it was retired); it writes nothing more'
    USING ERRCODE = '${STALE_ATTEMPT_SQLSTATE}';
END $$;
CREATE FUNCTION _finalstate_claim(p_token text, p_attempt integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE v_attempt integer; v_retired boolean;
BEGIN
  SELECT lease_attempt, retired INTO v_attempt, v_retired FROM public._finalstate_episode
    WHERE recorder_sha256 = sha256(convert_to(split_part(p_token, '.', 1), 'UTF8')) FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'finalstate internal tables: the recorder token does not match; only the runtime writes them'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF v_retired THEN
    RAISE EXCEPTION 'finalstate episode: an earlier attempt finished this episode and is tearing its database down'
      USING ERRCODE = '${RETIRED_EPISODE_SQLSTATE}';
  END IF;
  IF p_attempt < v_attempt THEN
    RAISE EXCEPTION 'finalstate episode: attempt % is older than attempt %, which holds this episode', p_attempt, v_attempt
      USING ERRCODE = '${STALE_ATTEMPT_SQLSTATE}';
  END IF;
  UPDATE public._finalstate_episode
    SET lease_attempt = coalesce(p_attempt, lease_attempt), lease_sha256 = sha256(convert_to(p_token, 'UTF8'));
END $$;
CREATE FUNCTION _finalstate_hold(p_token text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM public._finalstate_require_token(p_token);
END $$;
CREATE FUNCTION _finalstate_retire(p_token text) RETURNS oid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM public._finalstate_require_token(p_token);
  UPDATE public._finalstate_episode SET retired = true;
  RETURN (SELECT oid FROM pg_database WHERE datname = current_database());
END $$;
CREATE FUNCTION _finalstate_init_episode(p_token text, p_episode_id text, p_task_id text, p_task_sha256 text, p_clock timestamptz)
RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  INSERT INTO public._finalstate_episode (episode_id, task_id, task_sha256, clock, recorder_sha256)
  VALUES (p_episode_id, p_task_id, p_task_sha256, p_clock, sha256(convert_to(p_token, 'UTF8')))
$$;
CREATE FUNCTION _finalstate_record_call(p_token text, p_call_index integer, p_tool text, p_arguments jsonb, p_result jsonb, p_is_error boolean, p_message text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM public._finalstate_require_token(p_token);
  INSERT INTO public._finalstate_tool_calls (call_index, tool, arguments, result, is_error, message)
  VALUES (p_call_index, p_tool, p_arguments, p_result, p_is_error, p_message);
END $$;
CREATE FUNCTION _finalstate_save_checkpoint(p_token text, p_agent_turns integer, p_checkpoint json)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM public._finalstate_require_token(p_token);
  INSERT INTO public._finalstate_checkpoint (singleton, agent_turns, checkpoint) VALUES (true, p_agent_turns, p_checkpoint)
  ON CONFLICT (singleton) DO UPDATE SET agent_turns = EXCLUDED.agent_turns, checkpoint = EXCLUDED.checkpoint, saved_at = clock_timestamp();
END $$;
CREATE FUNCTION _finalstate_next_id(p_token text, p_sequence text, OUT prefix text, OUT value text)
RETURNS SETOF record LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM public._finalstate_require_token(p_token);
  RETURN QUERY UPDATE public._finalstate_sequences s SET next_value = s.next_value + 1 WHERE s.name = p_sequence
    RETURNING s.prefix, (s.next_value - 1)::text;
END $$;
`;

const TABLES = ['_finalstate_episode', '_finalstate_sequences', '_finalstate_tool_calls', '_finalstate_checkpoint'];
const FUNCTIONS = [
  '_finalstate_require_token(text)',
  '_finalstate_init_episode(text, text, text, text, timestamptz)',
  '_finalstate_record_call(text, integer, text, jsonb, jsonb, boolean, text)',
  '_finalstate_save_checkpoint(text, integer, json)',
  '_finalstate_next_id(text, text)',
  '_finalstate_claim(text, integer)',
  '_finalstate_hold(text)',
  '_finalstate_retire(text)',
];

/**
 * Run in a template after the domain's grants: the internal tables and functions change hands to the owner role, the
 * episode group keeps only reads of its own records and EXECUTE on the writers (functions are executable by PUBLIC
 * unless revoked).
 */
export function internalPrivilegesSql(): string {
  const group = ident(EPISODE_GROUP_ROLE);
  const owner = ident(INTERNALS_OWNER_ROLE);
  return [
    ...TABLES.map((t) => `REVOKE ALL ON ${t} FROM PUBLIC, ${group}`),
    ...TABLES.map((t) => `ALTER TABLE ${t} OWNER TO ${owner}`),
    `GRANT SELECT ON _finalstate_tool_calls, _finalstate_checkpoint TO ${group}`,
    `GRANT SELECT (episode_id, task_id, task_sha256, clock) ON _finalstate_episode TO ${group}`,
    ...FUNCTIONS.map((f) => `ALTER FUNCTION ${f} OWNER TO ${owner}`),
    ...FUNCTIONS.map((f) => `REVOKE ALL ON FUNCTION ${f} FROM PUBLIC`),
    ...FUNCTIONS.slice(1).map((f) => `GRANT EXECUTE ON FUNCTION ${f} TO ${group}`),
  ].join(';\n');
}
