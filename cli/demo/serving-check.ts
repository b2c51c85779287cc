import { spawn } from 'node:child_process';
import type { LoadedConfig } from '../../schemas/config.js';
import { InfrastructureError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { TokenScoreReport, type TokenScoreRequest } from '../../schemas/token-scores.js';

/**
 * Which weights a server serves, judged by what it answers rather than by what it reports (vLLM reports no policy
 * version): the greedy completion of a fixed prompt, its served log-probs against the log-probs that the trainer's
 * own computation (python/finalstate/token_scores) gives the same tokens under the published checkpoint and under the
 * base checkpoint. The published weights serve when the first differ by at most `tolerance` and the second by more.
 */

export const SERVING_CHECK_PROMPT = 'The capital of France is';
/**
 * Largest |served − trainer| log-prob, per token, still taken for the same weights (fp32 on both sides): vLLM 0.32.0
 * on CPU and the trainer's computation agreed to 9.5e-7 on the same weights.
 */
export const SERVING_TOLERANCE = 1e-4;

export interface ServingCheck {
  promptTokens: number;
  completion: number[];
  served: number[];
  /** Largest |served − trainer(published checkpoint)| over the completion tokens. */
  publishedDiff: number;
  /** Largest |served − trainer(base checkpoint)|. */
  baseDiff: number;
  tolerance: number;
  publishedServing: boolean;
}

async function post(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  if (!response.ok) throw new InfrastructureError(`${url} answered ${response.status}: ${text.slice(0, 500)}`, 'vllm');
  return JSON.parse(text);
}

/** The trainer's log-probs of `request`'s completion tokens under its checkpoint. */
export function trainerLogprobs(config: LoadedConfig, request: TokenScoreRequest): Promise<number[]> {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-m', 'finalstate.token_scores'], {
      env: { ...process.env, PYTHONPATH: fromRoot('python') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-3000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0)
        return reject(
          new InfrastructureError(
            `token scores of ${request.checkpointDir} failed (exit ${code}):\n${stderr}`,
            'python',
          ),
        );
      resolve(TokenScoreReport.parse(JSON.parse(stdout.trim().split('\n').pop() ?? 'null')).logprobs);
    });
    child.stdin.end(JSON.stringify(request));
  });
}

const maxAbsDiff = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));

export async function checkServing(
  config: LoadedConfig,
  server: { url: string; model: string },
  checkpoints: { published: string; base: string },
  maxTokens = 8,
): Promise<ServingCheck> {
  const { tokens } = (await post(`${server.url}/tokenize`, { model: server.model, prompt: SERVING_CHECK_PROMPT })) as {
    tokens: number[];
  };
  const completion = (await post(`${server.url}/v1/completions`, {
    model: server.model,
    prompt: tokens,
    max_tokens: maxTokens,
    temperature: 0,
    logprobs: 0,
    return_token_ids: true,
  })) as { choices: Array<{ token_ids: number[]; logprobs: { token_logprobs: number[] } }> };
  const choice = completion.choices[0]!;
  const request = (checkpointDir: string): TokenScoreRequest => ({
    checkpointDir,
    tokenIds: [...tokens, ...choice.token_ids],
    promptTokens: tokens.length,
  });
  const served = choice.logprobs.token_logprobs;
  const published = await trainerLogprobs(config, request(checkpoints.published));
  const base = await trainerLogprobs(config, request(checkpoints.base));
  const publishedDiff = maxAbsDiff(served, published);
  const baseDiff = maxAbsDiff(served, base);
  return {
    promptTokens: tokens.length,
    completion: choice.token_ids,
    served,
    publishedDiff,
    baseDiff,
    tolerance: SERVING_TOLERANCE,
    publishedServing: publishedDiff <= SERVING_TOLERANCE && baseDiff > SERVING_TOLERANCE,
  };
}

export function describeServing(check: ServingCheck, version: string | number): string {
  const fmt = (x: number) => x.toExponential(2);
  return [
    `serving check (${JSON.stringify(SERVING_CHECK_PROMPT)}, ${check.completion.length} greedy tokens): served log-probs vs the trainer's of`,
    `  the published checkpoint (version ${version}): max |diff| ${fmt(check.publishedDiff)}`,
    `  the base checkpoint:                 max |diff| ${fmt(check.baseDiff)}   (tolerance ${fmt(check.tolerance)})`,
    check.publishedServing
      ? `  => policy version ${version} is serving`
      : `  => the published weights are NOT what the server serves`,
  ].join('\n');
}
