import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { createTrainingActivities } from '../../activities/training.js';
import { defaultPublishOptions } from '../../runtime/clients/policy-admin.js';
import { failedStepText } from '../../cli/progress.js';
import { writeMinimalCheckpoint } from '../../testkit/pipeline/stand-in-gpu-worker.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';
import type { CampaignConfigWithQueues } from '../../workflows/inputs.js';
import { freePort } from '../helpers/index.js';
import { failedStepStatus } from './cli.js';
import { activityEnd } from './histories.js';

// A GRPO step that fails inside an activity names its whole cause wherever the failure is shown: the campaign's
// status (query and `campaign status`, text and --json), the line the demo prints, and the campaign's details in the
// Temporal UI. Three causes, each through the real publishPolicy activity on the real Temporal dev server: an
// incomplete checkpoint (a truncated weights file), an adapter a server refused (a stand-in for vLLM answering a
// load with its own HTTP 500, as vLLM 0.32.0 answers a truncated adapter: test/runtime/lora-adapters.test.ts has the
// real one), and fewer rollout servers than fleet.minServers (the only one refuses connections). Episodes come from
// the seeded random stand-in runner, updates from the stand-in gpu worker; each campaign starts at its training
// phase with a pool given, as a continued run does, so that no probe runs first.

const tasks = [task('t-a', 0.5), task('t-b', 0.5), task('t-c', 0.5), task('e-1', 0.5, 'eval')];
// vLLM 0.32.0's answer to a truncated adapter (test/runtime/lora-adapters.test.ts sees it from the real server).
const VLLM_REFUSAL =
  "Call to add_lora method failed: Worker failed with error 'Error while deserializing header: incomplete metadata, file not fully covered', please check the stack trace above for the root cause";

let p: Pipeline;
let damaged: string;
let adapter: string;
let refusing: http.Server;
let refusingUrl: string;
let dead: string;
const weights = new Map<string, string>();
/** The three campaigns, started together in `before`; each test reads its own. */
const shown: Record<'incomplete' | 'refused' | 'fewer', Promise<Awaited<ReturnType<typeof failedStep>>>> = {} as never;
const ids: Record<keyof typeof shown, string> = {} as never;

/** A safetensors file of zero-filled F32 tensors of these shapes. */
function writeSafetensors(file: string, tensors: Record<string, number[]>): void {
  let offset = 0;
  const header: Record<string, unknown> = {};
  for (const [name, shape] of Object.entries(tensors)) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(file, Buffer.concat([prefix, json, Buffer.alloc(offset)]));
}

before(async () => {
  p = await startPipeline(tasks, {}, 8, {
    checkpointWeights: (input) => weights.get(input.campaignId) ?? '',
    // Fewer servers than minServers is retried as an outage (10 attempts, up to a minute apart): the same failure,
    // with its retries a few milliseconds apart, so that the step ends after its last one within seconds.
    wrapControlActivities: (real) => {
      const fast = { ...defaultPublishOptions, backoffMs: 5 };
      return {
        ...real,
        publishPolicy: (input) =>
          createTrainingActivities({ artifacts: p.artifacts, publish: fast })
            .publishPolicy(input)
            .catch((err: unknown) => {
              if (!(err instanceof ApplicationFailure) || err.nonRetryable) throw err;
              throw ApplicationFailure.create({
                type: err.type ?? undefined,
                message: err.message,
                nextRetryDelay: '10ms',
              });
            }),
      };
    },
  });
  const root = p.artifacts.root;
  damaged = path.join(root, 'damaged-checkpoint');
  fs.mkdirSync(damaged, { recursive: true });
  await writeMinimalCheckpoint(damaged, 1);
  fs.truncateSync(path.join(damaged, 'model.safetensors'), 20);
  // A LoRA adapter whose files are whole (the publisher's check passes), which the stand-in server refuses.
  adapter = path.join(root, 'adapter');
  fs.mkdirSync(adapter, { recursive: true });
  fs.writeFileSync(
    path.join(adapter, 'adapter_config.json'),
    JSON.stringify({ r: 2, lora_alpha: 4, target_modules: ['q_proj'], base_model_name_or_path: '/nonexistent' }),
  );
  writeSafetensors(path.join(adapter, 'adapter_model.safetensors'), {
    'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight': [2, 4],
    'base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight': [4, 2],
  });
  refusing = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    if (req.url === '/v1/models') return send(200, { data: [{ id: 'tiny', owned_by: 'vllm', root: '/models/tiny' }] });
    if (req.url === '/v1/load_lora_adapter')
      return send(500, { error: { message: VLLM_REFUSAL, type: 'InternalServerError', param: null, code: 500 } });
    send(404, { detail: 'Not Found' });
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
  const configs = {
    incomplete: p.campaignConfig({ steps: 1, seed: 3 }),
    refused: p.campaignConfig({
      steps: 1,
      seed: 4,
      update: { baseModel: '/models/tiny', lora: { rank: 2, targetModules: ['q_proj'] } },
      policyServers: [{ url: refusingUrl, kind: 'vllm' }],
    }),
    fewer: p.campaignConfig({
      steps: 1,
      seed: 5,
      policyServers: [{ url: (dead = `http://127.0.0.1:${await freePort()}`), kind: 'finalstate' }],
    }),
  };
  weights.set(configs.incomplete.campaignId, damaged);
  weights.set(configs.refused.campaignId, adapter);
  for (const key of Object.keys(configs) as Array<keyof typeof configs>) {
    ids[key] = configs[key].campaignId;
    shown[key] = failedStep(configs[key]);
    shown[key].catch(() => undefined); // read by its test
  }
});
after(async () => {
  refusing?.close();
  await p?.close();
});

/** Runs one step of a campaign that starts at training, until the step fails: what shows the failure. */
async function failedStep(config: CampaignConfigWithQueues) {
  const handle = await p.startAtTraining(config, ['t-a', 't-b', 't-c']);
  const shown = await failedStepStatus(handle);
  const details = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
  await handle.terminate('the failed step is all this test needs');
  const { attempt } = await activityEnd(p.client, `${config.campaignId}/step-1`, 'publishPolicy');
  return { ...shown, details: details.currentDetails ?? '', attempt };
}

/** The cause is whole in every place it is shown. */
function assertWhole(shown: Awaited<ReturnType<typeof failedStep>>, id: string, parts: RegExp[]): void {
  const message = shown.status.failedStep!.message;
  assert.equal(shown.status.failedStep!.step, 1);
  assert.doesNotMatch(message, /Activity task failed|Child Workflow execution failed/);
  for (const part of parts) assert.match(message, part, `failedStep.message: ${message}`);
  assert.equal(shown.json.failedStep?.message, message, 'campaign status --json');
  assert.ok(shown.text.includes(`step 1 FAILED: ${message}`), `campaign status:\n${shown.text}`);
  assert.ok(failedStepText(id, shown.status.failedStep!).startsWith(`step 1 FAILED: ${message}\n`), 'the demo line');
  const details = shown.details.replace(/\\([*_`])/g, '$1');
  assert.ok(details.startsWith(`**Step 1 failed**: ${message}`), `current details in the Temporal UI: ${details}`);
}

test('an incomplete checkpoint: the step names the file, its sizes and what to do, after one attempt', async () => {
  const id = ids.incomplete;
  const failed = await shown.incomplete;
  assertWhole(failed, id, [
    new RegExp(`^workflow grpoStep ${id}/step-1: activity publishPolicy \\(not retried\\): `),
    /IncompleteCheckpoint: not publishing policy version 1: checkpoint .*step-000001: model\.safetensors declares a \d+-byte header but the file has 20 bytes \(truncated\?\)/,
    /Remove the directory and replay the step/,
  ]);
  assert.equal(failed.attempt, 1);
});

test("an adapter a server refused: the step names the server, the adapter and the server's own message, after one attempt", async () => {
  const failed = await shown.refused;
  assertWhole(failed, ids.refused, [
    /activity publishPolicy \(not retried\): AdapterRefused: policy version 1 serves on 0 of 1 rollout servers, fewer than fleet\.minServers 1, and no retry can change that/,
    new RegExp(`policy server ${refusingUrl} refused LoRA adapter \\S+-v1 \\(policy version 1\\) from .*step-000001`),
    /answered HTTP 500: Call to add_lora method failed: Worker failed with error 'Error while deserializing header: incomplete metadata, file not fully covered'/,
  ]);
  assert.equal(failed.attempt, 1);
});

test('fewer servers than fleet.minServers: the step names each server and why, after its retries', async () => {
  const failed = await shown.fewer;
  assertWhole(failed, ids.fewer, [
    /activity publishPolicy \(retries exhausted\): Infrastructure: policy version 1 serves on 0 of 1 rollout servers, fewer than fleet\.minServers 1: /,
    new RegExp(`${dead}: policy-server at ${dead}/v1/models unreachable \\(ECONNREFUSED\\)`),
  ]);
  assert.equal(failed.attempt, 10, "the publisher's 10 attempts");
});
