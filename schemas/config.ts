import { z } from 'zod';
import { ThinkingBoxStackConfig } from './thinkingbox.js';

const port = z.number().int().min(1).max(65535);

const EPISODE_SQL_BOUNDS_DEFAULTS = {
  statementTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 60_000,
  lockTimeoutMs: 5_000,
  toolCallTimeoutMs: 30_000,
  connectionLimit: 8,
};

/** What bounds the SQL of one episode's database role: tool calls, their records, grading. */
export const EpisodeSqlBounds = z
  .object({
    statementTimeoutMs: z
      .number()
      .int()
      .min(0)
      .default(EPISODE_SQL_BOUNDS_DEFAULTS.statementTimeoutMs)
      .describe(
        'statement_timeout of every session of an episode role: a runaway tool query is cancelled (a tool error) after this long; 0 disables it.',
      ),
    idleInTransactionTimeoutMs: z
      .number()
      .int()
      .min(0)
      .default(EPISODE_SQL_BOUNDS_DEFAULTS.idleInTransactionTimeoutMs)
      .describe(
        'idle_in_transaction_session_timeout of those sessions: one left idle inside a transaction this long is closed, releasing its locks; 0 disables it.',
      ),
    lockTimeoutMs: z
      .number()
      .int()
      .min(0)
      .default(EPISODE_SQL_BOUNDS_DEFAULTS.lockTimeoutMs)
      .describe(
        "lock_timeout of those sessions. In an episode database only a session other than the agent's own calls (a stale attempt's, the runtime's) can hold a lock a tool needs, so a tool that waits this long is an infrastructure failure, retried; keep it below statementTimeoutMs, which would otherwise end the wait as the tool's own slowness. 0 disables it.",
      ),
    toolCallTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(EPISODE_SQL_BOUNDS_DEFAULTS.toolCallTimeoutMs)
      .describe(
        "A tool call's handler still running after this long is ended: its session is terminated, its transaction rolled back and the agent told that the tool did not finish (the tool's fault, like a crash). A statement of it still unanswered statementTimeoutMs plus a grace after it started is a stuck connection or server instead: an infrastructure failure.",
      ),
    connectionLimit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(EPISODE_SQL_BOUNDS_DEFAULTS.connectionLimit)
      .describe("CONNECTION LIMIT of each episode role: the episode's pool plus a retried attempt's must fit."),
  })
  .strict()
  .refine((b) => b.lockTimeoutMs === 0 || b.statementTimeoutMs === 0 || b.lockTimeoutMs < b.statementTimeoutMs, {
    message:
      "lockTimeoutMs must be below statementTimeoutMs: a lock wait is an infrastructure failure, and the statement timeout would end it first as the tool's slowness",
    path: ['lockTimeoutMs'],
  });

/** The one configuration of a finalstate installation: addresses, ports and where data lives. */
export const StackConfig = z
  .object({
    dataDir: z
      .string()
      .min(1)
      .default('.data')
      .describe('Directory for all local state (Temporal SQLite file, PostgreSQL cluster, logs, artifacts).'),
    temporal: z
      .object({
        address: z.string().min(1).default('127.0.0.1:7233').describe('Temporal frontend address (host:port).'),
        namespace: z.string().min(1).default('default').describe('Temporal namespace.'),
        uiPort: port.default(8233).describe('Port of the Temporal Web UI served by the dev server.'),
        retentionDays: z
          .number()
          .int()
          .min(1)
          .max(3650)
          .default(30)
          .describe('Retention of closed workflows in the namespace.'),
        managed: z
          .boolean()
          .default(true)
          .describe('Start a local dev server (false: use an existing cluster at `address`).'),
      })
      .strict()
      .default({ address: '127.0.0.1:7233', namespace: 'default', uiPort: 8233, retentionDays: 30, managed: true }),
    postgres: z
      .object({
        url: z
          .url({
            protocol: /^postgres(ql)?$/,
            error: 'not a PostgreSQL URL: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE',
          })
          .optional()
          .describe('Use an existing server (env DATABASE_URL). When set, no local cluster is managed.'),
        host: z.string().min(1).default('127.0.0.1').describe('Host of the local cluster.'),
        port: port.default(55432).describe('Port of the local cluster.'),
        user: z.string().min(1).default('finalstate').describe('Superuser of the local cluster.'),
        password: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Password of that superuser (local cluster only). Unset: a random one, made at the first `dev up` and kept in <dataDir>/secrets/postgres-password (mode 0600), which every process of the project reads.',
          ),
        database: z.string().min(1).default('finalstate').describe('Control database name.'),
        durable: z
          .boolean()
          .default(false)
          .describe(
            'Local cluster only: fsync its writes (on). Off by default: every episode copies and drops a database, each drop forces a checkpoint, and with fsync those checkpoints bound the embedded stack near 1.5 episodes/s on this machine (3-6x slower provisioning). Off, a crash of PostgreSQL loses nothing; a crash of the machine itself can corrupt the cluster. A managed server (postgres.url) is never touched.',
          ),
        episodeBounds: EpisodeSqlBounds.default(EPISODE_SQL_BOUNDS_DEFAULTS),
      })
      .strict()
      .default({
        host: '127.0.0.1',
        port: 55432,
        user: 'finalstate',
        database: 'finalstate',
        durable: false,
        episodeBounds: EPISODE_SQL_BOUNDS_DEFAULTS,
      }),
    python: z
      .object({
        venv: z.string().min(1).default('.venv').describe('Project-local Python virtualenv.'),
        vllmVenv: z
          .string()
          .min(1)
          .default('.venv-vllm')
          .describe(
            'Virtualenv holding the CPU build of vLLM (python/vllm.lock), which the tests serve rollouts with.',
          ),
      })
      .strict()
      .default({ venv: '.venv', vllmVenv: '.venv-vllm' }),
    taskQueues: z
      .object({
        control: z.string().min(1).default('finalstate-control'),
        episodes: z.string().min(1).default('finalstate-episodes'),
        gpu: z.string().min(1).default('gpu'),
      })
      .strict()
      .default({ control: 'finalstate-control', episodes: 'finalstate-episodes', gpu: 'gpu' }),
    workers: z
      .object({
        episodeConcurrency: z
          .number()
          .int()
          .min(1)
          .max(1024)
          .default(8)
          .describe('Episodes one episode worker runs at once.'),
      })
      .strict()
      .default({ episodeConcurrency: 8 }),
    thinkingbox: ThinkingBoxStackConfig.default({
      port: 18610,
      venv: '.venv-thinkingbox',
      spareSessions: 2,
      restartAfterSessions: 1500,
      toolTimeoutSeconds: 120,
    }).describe('ThinkingBox environments: its session proxy and venv (schemas/thinkingbox.ts).'),
    domains: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'External domain packs to load besides the built-in ones: module paths (starting with ./, ../ or /, relative to this file) or package names (resolved from node_modules next to this file); each module exports `domains`. FINALSTATE_DOMAIN_MODULES adds more.',
      ),
  })
  .strict();

export type StackConfig = z.infer<typeof StackConfig>;

/**
 * Environment variables that override single keys. The variable names are part of the public interface
 * (README's configuration table), so they are listed rather than derived.
 */
export const ENV_OVERRIDES: ReadonlyArray<{ env: string; path: string; type: 'string' | 'number' | 'boolean' }> = [
  { env: 'FINALSTATE_DATA_DIR', path: 'dataDir', type: 'string' },
  { env: 'TEMPORAL_ADDRESS', path: 'temporal.address', type: 'string' },
  { env: 'FINALSTATE_TEMPORAL_ADDRESS', path: 'temporal.address', type: 'string' },
  { env: 'FINALSTATE_TEMPORAL_NAMESPACE', path: 'temporal.namespace', type: 'string' },
  { env: 'FINALSTATE_TEMPORAL_UI_PORT', path: 'temporal.uiPort', type: 'number' },
  { env: 'FINALSTATE_TEMPORAL_RETENTION_DAYS', path: 'temporal.retentionDays', type: 'number' },
  { env: 'FINALSTATE_TEMPORAL_MANAGED', path: 'temporal.managed', type: 'boolean' },
  { env: 'DATABASE_URL', path: 'postgres.url', type: 'string' },
  { env: 'FINALSTATE_PG_HOST', path: 'postgres.host', type: 'string' },
  { env: 'FINALSTATE_PG_PORT', path: 'postgres.port', type: 'number' },
  { env: 'FINALSTATE_PG_USER', path: 'postgres.user', type: 'string' },
  { env: 'FINALSTATE_PG_PASSWORD', path: 'postgres.password', type: 'string' },
  { env: 'FINALSTATE_PG_DATABASE', path: 'postgres.database', type: 'string' },
  { env: 'FINALSTATE_PG_DURABLE', path: 'postgres.durable', type: 'boolean' },
  { env: 'FINALSTATE_VENV', path: 'python.venv', type: 'string' },
  { env: 'FINALSTATE_VLLM_VENV', path: 'python.vllmVenv', type: 'string' },
  { env: 'FINALSTATE_EPISODE_CONCURRENCY', path: 'workers.episodeConcurrency', type: 'number' },
  { env: 'THINKINGBOX_HOME', path: 'thinkingbox.home', type: 'string' },
  { env: 'FINALSTATE_THINKINGBOX_URL', path: 'thinkingbox.url', type: 'string' },
  { env: 'FINALSTATE_THINKINGBOX_API_KEY_FILE', path: 'thinkingbox.apiKeyFile', type: 'string' },
  { env: 'FINALSTATE_THINKINGBOX_PORT', path: 'thinkingbox.port', type: 'number' },
];

/** A StackConfig as loaded (workers/config.ts loadConfig): with where it came from and its resolved paths. */
export interface LoadedConfig extends StackConfig {
  /** Absolute data directory. */
  dataPath: string;
  /** Where each key came from, for error messages and `dev status`. */
  sources: Record<string, string>;
  /** The directory relative paths in the config file resolve against (the file's own directory, or the project root). */
  configDir: string;
}
