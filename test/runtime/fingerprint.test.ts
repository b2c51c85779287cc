import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { EndpointRequestError } from '../../runtime/clients/errors.js';
import { fingerprintDiff, fingerprintOf } from '../../runtime/clients/fingerprint.js';

// Reading a fingerprint answer. Answers of real vLLM are read in policy-client.test.ts and policy-admin.test.ts; these
// are the shapes vLLM 0.32.0 gives when it aborts a request (paused with mode=abort, or shutting down: no
// prompt_logprobs) and when a server leaves prompt_logprobs out.
const url = 'http://vllm/v1/completions';
const answer = (choice: Record<string, unknown>) => ({
  model: 'tiny-qwen3',
  choices: [{ index: 0, text: '', logprobs: null, stop_reason: null, ...choice }],
});

test('a fingerprint is the log-prob of each prompt token after the first, read by token id', () => {
  const measured = fingerprintOf(
    url,
    answer({
      finish_reason: 'length',
      prompt_token_ids: [54, 74, 71],
      prompt_logprobs: [null, { '74': { logprob: -5.6, rank: 96 } }, { '71': { logprob: -5.7, rank: 147 } }],
    }),
  );
  assert.deepEqual(measured, { promptTokenIds: [54, 74, 71], logprobs: [-5.6, -5.7] });
  assert.equal(fingerprintDiff([-5.6, -5.7], [-5.6, -5.75]).toFixed(2), '0.05');
  assert.equal(fingerprintDiff([-5.6], [-5.6, -5.7]), Infinity, 'another prompt is never the same weights');
});

test('an aborted fingerprint request is an InfrastructureError (retried); one without prompt log-probs a configuration error', () => {
  assert.throws(
    () => fingerprintOf(url, answer({ finish_reason: 'abort', prompt_token_ids: [54, 74], prompt_logprobs: null })),
    (err: unknown) => err instanceof InfrastructureError && /aborted the fingerprint's request/.test(err.message),
  );
  assert.throws(
    () => fingerprintOf(url, answer({ finish_reason: 'length', prompt_token_ids: [54, 74] })),
    (err: unknown) => err instanceof EndpointRequestError && /answered no prompt_logprobs/.test(err.message),
  );
});
