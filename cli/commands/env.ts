import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { builtInTaskDirs } from '../../domains/index.js';
import { newBearerToken, writeTokenFile } from '../../environment/mcp-http.js';
import { readTaskSets, type LoadedTaskSet } from '../../environment/task-set.js';
import { startOpenEnvServer } from '../../infra/openenv-server.js';
import { PostgresEnvironment } from '../../runtime/episode/environments/postgres.js';
import { EpisodeHost } from '../../runtime/openenv/episode-host.js';
import { serveEpisodeHost, type HostInfo } from '../../runtime/openenv/host-server.js';
import { Profile, Split } from '../../schemas/task.js';
import { loadConfig } from '../../workers/config.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { parse, type Command } from '../command.js';
import { httpGuardFlags, httpServeOptions } from '../http-serve-options.js';
import { userFlags, userSimulatorOption } from '../user-option.js';

const usage = `finalstate env serve --openenv (--dir TASKS | --domain D) [options]

Serves a finalstate task set as an OpenEnv environment, on OpenEnv's own server (openenv-core, .venv-openenv): its
WebSocket /ws (reset, step, state, close), /mcp, /health, /metadata, /schema, and GET /tasks, /tasks/{id}. Each reset
opens a fresh episode (a PostgreSQL database or a ThinkingBox session); closing the session tears it down.

  --dir TASKS              the task sets of this folder (default with --domain: the built-in pack's)
  --domain D               only the tasks of domain D
  --split S, --profile P   only the tasks of split S (train, eval) and profile P (full, mini)
  --host H                 the address to listen on (default 127.0.0.1)
  --port P                 its port (default 0: a free one)
  --token-file F           where the bearer token is written (mode 0600; default <dataDir>/openenv/<pid>.token);
                           FINALSTATE_OPENENV_TOKEN gives one. Clients send \`Authorization: Bearer <token>\`, or
                           use the base URL http://finalstate:<token>@host:port (OpenEnv's own client)
  --allowed-host H, --allowed-origin O (repeatable)
                           Host/Origin values accepted besides the server's own address
  --max-sessions N         sessions (episodes) open at once (default 8)
  --session-idle-seconds S a session idle this long is closed, its episode torn down (default 300)
  --user scripted|llm      the simulated user: the deterministic one (default; also \`deterministic\`) or an LLM
                           (--user-url, --user-model, --user-key-env)

Prints one JSON line once it serves: {"url", "tokenFile", "tasks"}. Stops on SIGINT or SIGTERM, tearing every open
episode down.`;

/** The task sets to serve: those of --dir (or the built-in pack of --domain), narrowed to the domain, split, profile. */
function servedSets(values: { dir?: string; domain?: string; split?: string; profile?: string }): LoadedTaskSet[] {
  if (values.dir === undefined && values.domain === undefined)
    throw new UserError(`finalstate env serve: pass --dir TASKS or --domain D\n\n${usage}`);
  if (values.split !== undefined && !Split.safeParse(values.split).success)
    throw new UserError(`finalstate env serve: --split must be train or eval, got ${values.split}`);
  if (values.profile !== undefined && !Profile.safeParse(values.profile).success)
    throw new UserError(`finalstate env serve: --profile must be full or mini, got ${values.profile}`);
  let dir: string;
  if (values.dir !== undefined) dir = path.resolve(values.dir);
  else {
    const builtIn = builtInTaskDirs[values.domain!];
    if (!builtIn)
      throw new UserError(
        `finalstate env serve: ${values.domain} is not a built-in pack (${Object.keys(builtInTaskDirs).join(', ')}); pass --dir with its task sets`,
      );
    dir = fromRoot(builtIn);
  }
  if (!fs.existsSync(dir)) throw new UserError(`finalstate env serve: --dir ${dir} does not exist`);
  const sets = readTaskSets(dir)
    .map((set) => ({
      ...set,
      tasks: set.tasks.filter(
        (t) =>
          (values.domain === undefined || t.domain === values.domain) &&
          (values.split === undefined || t.split === values.split) &&
          (values.profile === undefined || t.profile === values.profile),
      ),
    }))
    .filter((set) => set.tasks.length > 0);
  if (sets.length === 0)
    throw new UserError(
      `finalstate env serve: no task in ${dir}${values.domain ? ` of domain ${values.domain}` : ''}${values.split ? `, split ${values.split}` : ''}${values.profile ? `, profile ${values.profile}` : ''}`,
    );
  return sets;
}

/** What /metadata says: finalstate, the set, the actions. */
function hostInfo(sets: readonly LoadedTaskSet[]): HostInfo {
  const names = sets.map((s) => s.manifest.name).join(', ');
  const count = sets.reduce((n, s) => n + s.tasks.length, 0);
  const domains = [...new Set(sets.flatMap((s) => s.tasks.map((t) => t.domain)))].join(', ');
  return {
    name: 'finalstate',
    version: (JSON.parse(fs.readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version,
    description: `finalstate task sets ${names} (${count} tasks; ${domains}): tool-using episodes rewarded by the final state of a real database. Reset with task_id or seed; step with list_tools, call_tool, message (to the simulated user) or finish.`,
    readme: [
      '# finalstate',
      '',
      `Task sets: ${names} (${count} tasks). \`GET /tasks\` lists them, \`GET /tasks/{id}\` shows one.`,
      '',
      '- reset kwargs: `task_id` (a task of the set), or `seed` (draws one), `episode_id` (optional)',
      '- `{"type": "list_tools"}`, `{"type": "call_tool", "tool_name": ..., "arguments": {...}}`: the episode\'s tools',
      '- `{"type": "message", "content": ...}`: to the simulated user; the reply is in `user_message`',
      '- `{"type": "finish"}`: the agent is done; the episode is graded',
      '',
      'When done: `reward` 1 iff the final state matches the expected one, `finish_reason`, `diff`, `summary`; an',
      'infrastructure failure has `reward` null and `infrastructure_error`, never 0. Wire shapes: schemas/openenv.ts.',
    ].join('\n'),
  };
}

async function serve(argv: string[]): Promise<number> {
  const { values } = parse('env serve', argv, {
    openenv: { type: 'boolean', default: false },
    dir: { type: 'string' },
    domain: { type: 'string' },
    split: { type: 'string' },
    profile: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    ...userFlags,
    ...httpGuardFlags,
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (!values.openenv)
    throw new UserError(`finalstate env serve: --openenv is required (the one protocol served)\n\n${usage}`);
  const guards = httpServeOptions('env serve', values, 'FINALSTATE_OPENENV_TOKEN');
  const sets = servedSets(values);
  const user = userSimulatorOption('env serve', values);
  const config = loadConfig();
  const tokenFile = path.resolve(values['token-file'] ?? path.join(config.dataPath, 'openenv', `${process.pid}.token`));
  const token = guards.token ?? newBearerToken();
  const say = (line: string) => process.stderr.write(`finalstate env serve: ${line}\n`);

  writeTokenFile(tokenFile, token); // before anything starts: a path that is not ours to write stops here
  const cleanups: (() => Promise<unknown>)[] = [async () => fs.rmSync(tokenFile, { force: true })];
  const cleanUp = async () => {
    for (const step of cleanups.reverse()) await step().catch((err: unknown) => say(`stopping: ${String(err)}`));
  };
  try {
    const runtime = await createEpisodeRuntime(config);
    cleanups.push(() => runtime.close());
    const host = new EpisodeHost({
      sets,
      environments: [
        ...runtime.environments,
        new PostgresEnvironment(runtime.backend, runtime.runnerDeps.expectedStates),
      ],
      user,
      maxEpisodes: guards.maxSessions,
      log: say,
    });
    cleanups.push(() => host.closeAll('the server stopped'));
    const endpoint = await serveEpisodeHost(host, hostInfo(sets));
    cleanups.push(() => endpoint.close());
    const server = await startOpenEnvServer(
      {
        hostUrl: endpoint.url,
        hostSecret: endpoint.secret,
        token,
        bind: values.host,
        port: guards.port,
        maxSessions: guards.maxSessions,
        sessionIdleSeconds: guards.sessionIdleSeconds,
        maxConnections: guards.maxConnections,
        headersTimeoutSeconds: guards.headersTimeoutSeconds,
        allowedHosts: guards.allowedHosts,
        allowedOrigins: guards.allowedOrigins,
      },
      (line) => process.stderr.write(`openenv: ${line}\n`),
    );
    cleanups.push(() => server.stop());
    const tasks = sets.reduce((n, s) => n + s.tasks.length, 0);
    say(
      `serving ${tasks} tasks (${sets.map((s) => s.manifest.name).join(', ')}) over OpenEnv at ${server.url}; the token is in ${tokenFile}; ` +
        `at most ${guards.maxSessions} sessions, each closed after ${guards.sessionIdleSeconds} s idle`,
    );
    console.log(JSON.stringify({ url: server.url, tokenFile, tasks }));
    const stopped = await new Promise<'signal' | 'server'>((resolve) => {
      process.once('SIGINT', () => resolve('signal'));
      process.once('SIGTERM', () => resolve('signal'));
      void server.exited.then(() => resolve('server'));
    });
    if (stopped === 'server') {
      say('the OpenEnv server exited; stopping');
      return 1;
    }
    return 0;
  } finally {
    await cleanUp();
  }
}

export const envCommand: Command = {
  name: 'env',
  summary: 'serve finalstate task sets as environments of another standard (OpenEnv)',
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'serve') return serve(rest);
    if (sub === undefined || sub === '--help' || sub === '-h') {
      console.log(usage);
      return 0;
    }
    throw new UserError(`finalstate env: expected serve, got ${sub}\n\n${usage}`);
  },
};
