import type { z } from 'zod';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { SidecarFailure, type SidecarRequest } from '../../schemas/thinkingbox.js';
import { JsonLinesProcess } from '../json-lines-process.js';

/** A failure the sidecar reports about a task (a malformed test file or body): the task's fault, not the stack's. */
export class MalformedThinkingBoxTask extends UserError {
  override name = 'MalformedThinkingBoxTask';
}

/** Failure kinds that are the task's fault; every other kind is infrastructure (retried, never scored). */
const TASK_FAULTS = new Set(['malformed']);

/**
 * ThinkingBox's own code, run in its own venv: the Python sidecar `finalstate_thinkingbox`, a long-lived process
 * answering one JSON request a line (hydrate test cases, grade an episode with ThinkingBox's test runner and Judge,
 * simulate its user). Requests are answered in order, one at a time (a JsonLinesProcess in ordered mode); a sidecar
 * that dies is started again for the next request, and the request in flight fails as infrastructure.
 */
export class ThinkingBoxSidecar {
  private readonly process: JsonLinesProcess;

  constructor(python: string, env: NodeJS.ProcessEnv = {}) {
    this.process = new JsonLinesProcess({
      name: 'thinkingbox sidecar',
      component: 'thinkingbox-sidecar',
      command: python,
      args: ['-m', 'finalstate_thinkingbox'],
      env: { ...env, PYTHONPATH: fromRoot('python') },
      mode: 'ordered',
    });
  }

  /** Send one request and parse its answer with `schema`; a failure answer throws (MalformedThinkingBoxTask or InfrastructureError). */
  async request<S extends z.ZodType>(request: SidecarRequest, schema: S): Promise<z.infer<S>> {
    const answer = await this.process.request(request, { what: request.op });
    const failure = SidecarFailure.safeParse(answer);
    if (failure.success) {
      const { kind, message } = failure.data;
      if (TASK_FAULTS.has(kind)) throw new MalformedThinkingBoxTask(message);
      throw new InfrastructureError(`thinkingbox sidecar: ${request.op}: ${kind}: ${message}`, `thinkingbox-${kind}`);
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success)
      throw new InfrastructureError(
        `thinkingbox sidecar answered ${request.op} in an unexpected shape: ${parsed.error.message.slice(0, 500)}`,
        'thinkingbox-sidecar',
      );
    return parsed.data;
  }

  close(): Promise<void> {
    return this.process.close();
  }
}
