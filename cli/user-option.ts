import { UserError } from '../core/errors.js';
import type { EpisodeRequest } from '../schemas/episode.js';

/** The simulated-user flags of the commands that play episodes (`run`, `env serve`), as parseArgs options. */
export const userFlags = {
  user: { type: 'string' },
  'user-url': { type: 'string' },
  'user-model': { type: 'string' },
  'user-key-env': { type: 'string' },
} as const;

/**
 * The simulated user from `--user scripted|llm` (`deterministic` is the scripted one; absent: it) and the LLM
 * user's --user-url, --user-model, --user-key-env; an error names the command and the flag.
 */
export function userSimulatorOption(
  command: string,
  values: { user?: string; 'user-url'?: string; 'user-model'?: string; 'user-key-env'?: string },
): EpisodeRequest['user'] {
  if (values.user === undefined || values.user === 'scripted' || values.user === 'deterministic')
    return { kind: 'scripted' };
  if (values.user !== 'llm')
    throw new UserError(`finalstate ${command}: --user must be scripted (deterministic) or llm, got ${values.user}`);
  if (!values['user-url'] || !values['user-model'])
    throw new UserError(`finalstate ${command}: --user llm needs --user-url and --user-model`);
  return {
    kind: 'llm',
    endpoint: {
      baseUrl: values['user-url'],
      model: values['user-model'],
      timeoutMs: 120_000,
      maxRetries: 2,
      ...(values['user-key-env'] ? { apiKeyEnv: values['user-key-env'] } : {}),
    },
  };
}
