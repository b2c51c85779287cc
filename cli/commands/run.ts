import path from 'node:path';
import { readTaskSets } from '../../environment/task-set.js';
import { loadConfig } from '../../workers/config.js';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { formatTranscript } from '../../runtime/episode/transcript.js';
import { PolicyClientConfig } from '../../schemas/clients.js';
import { EpisodeRequest, type PolicyRef } from '../../schemas/episode.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption, numberOption } from '../number-option.js';
import { userFlags, userSimulatorOption } from '../user-option.js';

const usage = `finalstate run --task ID [--policy URL|oracle] [--user scripted|llm] [--json]

Runs one episode on a fresh backend and prints the conversation, the grading diff and the reward.

  --policy URL|oracle   an OpenAI-compatible completions server (vLLM or \`python -m finalstate.policy_server\`),
                        or \`oracle\` (the task's golden calls written as model text through the interpreter)
  --model NAME          model name on that server (default: the first one /v1/models lists)
  --family F            chat format of the model: qwen3 (Hermes JSON) or qwen3-coder (XML) (default qwen3)
  --temperature T       sampling temperature (default 1)
  --max-tokens N        tokens per agent turn (default 256)
  --seed N              sampling seed (default 0)
  --user scripted|llm   the deterministic simulator (default) or an LLM one (--user-url, --user-model, --user-key-env)
  --dir DIR             task-set directory (default tasks/)`;

export async function firstModel(baseUrl: string): Promise<string> {
  try {
    const res = await fetch(new URL('/v1/models', baseUrl), { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { data?: { id: string }[] };
    const id = body.data?.[0]?.id;
    if (!id) throw new Error('no model listed');
    return id;
  } catch (err) {
    throw new UserError(
      `finalstate run: cannot list models at ${baseUrl}/v1/models (${(err as Error).message}); pass --model`,
    );
  }
}

export const runCommand: Command = {
  name: 'run',
  summary: 'run one episode and print the conversation, the grading diff and the reward',
  usage,
  async run(argv) {
    const { values } = parse('run', argv, {
      task: { type: 'string' },
      policy: { type: 'string', default: 'oracle' },
      model: { type: 'string' },
      family: { type: 'string' },
      temperature: { type: 'string', default: '1' },
      'max-tokens': { type: 'string', default: '256' },
      seed: { type: 'string', default: '0' },
      ...userFlags,
      dir: { type: 'string' },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (!values.task) throw new UserError(`finalstate run: --task ID is required\n\n${usage}`);
    const dir = values.dir ? path.resolve(values.dir) : fromRoot('tasks');
    const set = readTaskSets(dir).find((s) => s.tasks.some((t) => t.id === values.task));
    if (!set) throw new UserError(`finalstate run: no task ${values.task} in the task sets of ${dir}`);
    const seed = integerOption(values.seed, '--seed', 'run', 0) ?? 0;
    let policy: PolicyRef = { kind: 'oracle' };
    if (values.policy !== 'oracle') {
      const baseUrl = values.policy;
      const temperature = numberOption(values.temperature, '--temperature', 'run', 0, 10) ?? 1;
      policy = {
        kind: 'served',
        client: PolicyClientConfig.parse({
          baseUrl,
          model: values.model ?? (await firstModel(baseUrl)),
          family: values.family,
          timeoutMs: 120_000,
          sampling: {
            maxTokens: integerOption(values['max-tokens'], '--max-tokens', 'run', 1) ?? 256,
            temperature,
            topP: 1,
            stop: [],
          },
        }),
      };
    }
    const user = userSimulatorOption('run', values);

    const request = EpisodeRequest.parse({
      episodeId: `run-${values.task}-${Date.now()}`,
      taskId: values.task,
      taskSet: set.manifestFile,
      trial: 0,
      policy,
      user,
      seed,
    });
    const runtime = await createEpisodeRuntime(loadConfig());
    try {
      const outcome = await runtime.runner.run(request);
      const record = (await new EpisodeStore(runtime.control).load(request.episodeId))!;
      if (values.json) printJson({ outcome, record });
      else console.log(formatTranscript(record));
      return 0;
    } finally {
      await runtime.close();
    }
  },
};
