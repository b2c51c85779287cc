import fs from 'node:fs';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import {
  OpenEnvBridgeAnswer,
  type OpenEnvBridgeFailureKind,
  type OpenEnvBridgeResult,
} from '../../schemas/openenv-bridge.js';
import { JsonLinesProcess } from '../json-lines-process.js';

/** OpenEnv's own venv (infra/setup-openenv.sh). */
export const OPENENV_PYTHON = fromRoot('.venv-openenv', 'bin', 'python');

/** The OpenEnv server refused finalstate (a 4xx handshake: the token or the path), or refused its action: not transient. */
export class OpenEnvRefused extends UserError {
  override name = 'OpenEnvRefused';
}

/** Failure kinds that are the configuration's fault (retrying cannot help); every other kind is infrastructure. */
const CONFIG_FAULTS = new Set<OpenEnvBridgeFailureKind>(['refused', 'rejected']);

export interface OpenEnvConnect {
  url: string;
  token?: string;
  /** The reset kwargs. */
  reset: Record<string, unknown>;
  connectTimeoutSeconds: number;
  stepTimeoutSeconds: number;
}

/** Time the bridge process may take to start (importing openenv.core takes seconds) on top of a request's own. */
const STARTUP_MS = 60_000;

/**
 * OpenEnv sessions through OpenEnv's own Python client: one bridge process per worker
 * (python/finalstate_openenv/client_bridge.py, in .venv-openenv) holding every open session of this worker, answering
 * requests by id and concurrently (a JsonLinesProcess in concurrent mode), so a session that hangs holds up no other.
 * Connection refused, a 5xx handshake, a dead session, a timeout and the server's errors about itself are
 * InfrastructureErrors; a 4xx handshake or an action the server rejects is an OpenEnvRefused naming the server.
 */
export class OpenEnvBridge {
  private readonly process: JsonLinesProcess;

  constructor(private readonly python = OPENENV_PYTHON) {
    this.process = new JsonLinesProcess({
      name: 'OpenEnv client bridge',
      component: 'openenv-bridge',
      command: python,
      args: ['-m', 'finalstate_openenv.client_bridge'],
      env: { PYTHONPATH: fromRoot('python') },
      mode: 'concurrent',
    });
  }

  /** Connect to the server and reset: a fresh session, and the reset's result. */
  async open(connect: OpenEnvConnect): Promise<{ session: string; result: OpenEnvBridgeResult }> {
    this.checkVenv();
    const answer = await this.ask(
      {
        op: 'open',
        url: connect.url,
        token: connect.token ?? null,
        reset: connect.reset,
        connectTimeoutS: connect.connectTimeoutSeconds,
        stepTimeoutS: connect.stepTimeoutSeconds,
      },
      `reset on ${connect.url}`,
      (connect.connectTimeoutSeconds + connect.stepTimeoutSeconds) * 1000 + STARTUP_MS,
    );
    if (answer.session === undefined || answer.result === undefined)
      throw new InfrastructureError(`OpenEnv client bridge answered a reset without a session`, 'openenv-bridge');
    return { session: answer.session, result: answer.result };
  }

  async step(
    session: string,
    action: Record<string, unknown>,
    stepTimeoutSeconds: number,
    url: string,
  ): Promise<OpenEnvBridgeResult> {
    const answer = await this.ask(
      { op: 'step', session, action },
      `step ${String(action.type)} on ${url}`,
      stepTimeoutSeconds * 1000 + STARTUP_MS,
    );
    if (answer.result === undefined)
      throw new InfrastructureError(`OpenEnv client bridge answered a step without a result`, 'openenv-bridge');
    return answer.result;
  }

  /** Close the session (its WebSocket): the server tears the episode down. Never throws. */
  async closeSession(session: string): Promise<void> {
    await this.ask({ op: 'close', session }, 'close', 30_000).catch(() => undefined);
  }

  /** Stop the bridge: every session it holds closes with it. */
  close(): Promise<void> {
    return this.process.close();
  }

  private checkVenv(): void {
    if (!fs.existsSync(this.python))
      throw new UserError(
        `OpenEnv tasks need OpenEnv's venv, and ${this.python} is missing: run npm run setup (infra/setup-openenv.sh)`,
      );
  }

  private async ask(request: Record<string, unknown>, what: string, timeoutMs: number) {
    const raw = await this.process.request(request, { what, timeoutMs });
    const parsed = OpenEnvBridgeAnswer.safeParse(raw);
    if (!parsed.success)
      throw new InfrastructureError(
        `OpenEnv client bridge answered ${what} in an unexpected shape: ${parsed.error.message.slice(0, 500)}`,
        'openenv-bridge',
      );
    const answer = parsed.data;
    if (answer.ok) return answer;
    if (CONFIG_FAULTS.has(answer.kind)) throw new OpenEnvRefused(`OpenEnv server refused: ${answer.message}`);
    if (answer.kind === 'bad_request') throw new Error(`OpenEnv client bridge: ${answer.message}`);
    throw new InfrastructureError(`OpenEnv ${answer.kind}: ${answer.message}`, `openenv-${answer.kind}`);
  }
}
