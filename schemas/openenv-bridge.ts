import { z } from 'zod';

/**
 * The lines between an episode worker and its OpenEnv client bridge (python/finalstate_openenv/client_bridge.py, run
 * in .venv-openenv): requests carry an `id`, and each answer names the request it answers.
 */

/** A reset's or a step's result as OpenEnv's client returns it (StepResult: observation, reward, done). */
export const OpenEnvBridgeResult = z
  .object({
    observation: z.record(z.string(), z.unknown()),
    reward: z.number().nullable().optional(),
    done: z.boolean(),
  })
  .strict();
export type OpenEnvBridgeResult = z.infer<typeof OpenEnvBridgeResult>;

/** Why a request failed (the bridge's module docstring says what each kind covers). */
export const OpenEnvBridgeFailureKind = z.enum([
  'unreachable',
  'refused',
  'lost',
  'timeout',
  'server',
  'rejected',
  'no_session',
  'bad_request',
]);
export type OpenEnvBridgeFailureKind = z.infer<typeof OpenEnvBridgeFailureKind>;

export const OpenEnvBridgeAnswer = z.union([
  z
    .object({
      id: z.string(),
      ok: z.literal(true),
      session: z.string().optional(),
      result: OpenEnvBridgeResult.optional(),
    })
    .strict(),
  z
    .object({ id: z.string().nullable(), ok: z.literal(false), kind: OpenEnvBridgeFailureKind, message: z.string() })
    .strict(),
]);
export type OpenEnvBridgeAnswer = z.infer<typeof OpenEnvBridgeAnswer>;
