import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { importOpenEnv } from '../../environment/openenv/import.js';
import type { OpenEnvTaskPartInput } from '../../schemas/openenv-task.js';
import { Split } from '../../schemas/task.js';
import { parse, printJson } from '../command.js';

export const importOpenEnvUsage = `  import-openenv --url U (--task ID... | --seeds N [--seed-from K]) --domain D --split S --out FILE
                                                  a task set whose tasks play on the OpenEnv server U, one per
                                                  environment task id or seed (K, K+1, …; default K 0), each reset
                                                  once on U to check it; optional:
     [--messages message|final] [--submit TOOL:ARG]
                                                  how the agent's plain messages are answered: message steps (default)
                                                  or, tools-only, its final answer (passed to TOOL as ARG)
     [--prompt-field F] [--system-field F] [--pass-reward R] [--token-from env:NAME|file:PATH]
                                                  the reset observation's fields (default user_message; none), the
                                                  reward that passes (default 1), where workers read a bearer token`;

const SUB = 'finalstate tasks import-openenv';

/** `finalstate tasks import-openenv`: flags into importOpenEnv (environment/openenv/import.ts). */
export async function importOpenEnvSet(argv: string[]): Promise<number> {
  const { values } = parse('tasks import-openenv', argv, {
    url: { type: 'string' },
    task: { type: 'string', multiple: true },
    seeds: { type: 'string' },
    'seed-from': { type: 'string' },
    domain: { type: 'string' },
    split: { type: 'string' },
    out: { type: 'string' },
    messages: { type: 'string' },
    submit: { type: 'string' },
    'prompt-field': { type: 'string' },
    'system-field': { type: 'string' },
    'pass-reward': { type: 'string' },
    'token-from': { type: 'string' },
  });
  if (values.help) {
    console.log(importOpenEnvUsage);
    return 0;
  }
  for (const flag of ['url', 'domain', 'split', 'out'] as const)
    if (!values[flag]) throw new UserError(`${SUB}: --${flag} is required`);
  const split = Split.safeParse(values.split);
  if (!split.success) throw new UserError(`${SUB}: --split must be train or eval, got ${values.split}`);
  const out = path.resolve(values.out!);
  if (!out.endsWith('.jsonl')) throw new UserError(`${SUB}: --out must name a .jsonl file, got ${values.out}`);
  if (Boolean(values.task?.length) === (values.seeds !== undefined))
    throw new UserError(`${SUB}: give the environment's task ids (--task ID...) or a number of seeds (--seeds N), one of them`);
  const count = (flag: string, raw: string, min: number) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new UserError(`${SUB}: --${flag} must be an integer of at least ${min}, got ${raw}`);
    return n;
  };
  const draw = values.task?.length
    ? { taskIds: values.task }
    : { seeds: count('seeds', values.seeds!, 1), from: count('seed-from', values['seed-from'] ?? '0', 0) };
  const part: Omit<OpenEnvTaskPartInput, 'reset'> = {
    url: values.url!,
    ...(values.messages !== undefined ? { messages: values.messages as 'message' | 'final' } : {}),
    ...(values.submit !== undefined ? { submit: submitOf(values.submit) } : {}),
    ...(values['prompt-field'] !== undefined ? { promptField: values['prompt-field'] } : {}),
    ...(values['system-field'] !== undefined ? { systemField: values['system-field'] } : {}),
    ...(values['pass-reward'] !== undefined ? { passReward: Number(values['pass-reward']) } : {}),
    ...(values['token-from'] !== undefined ? { token: tokenFrom(values['token-from']) } : {}),
  };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const report = await importOpenEnv({
    part,
    draw,
    domain: values.domain!,
    split: split.data,
    out: { dir: path.dirname(out), name: path.basename(out, '.jsonl') },
  });
  if (values.json) printJson(report);
  else {
    console.log(`wrote ${report.tasks} OpenEnv task(s) of ${report.url} to ${report.file} (manifest ${report.manifestFile})`);
    for (const ids of report.sameTask) console.log(`  the same environment task: ${ids.join(', ')}`);
  }
  return 0;
}

function submitOf(raw: string): { tool: string; argument: string } {
  const [tool, argument, ...rest] = raw.split(':');
  if (!tool || !argument || rest.length) throw new UserError(`${SUB}: --submit must be TOOL:ARG, got ${raw}`);
  return { tool, argument };
}

function tokenFrom(raw: string): OpenEnvTaskPartInput['token'] {
  const [from, ...rest] = raw.split(':');
  const value = rest.join(':');
  if (from === 'env' && value) return { from: 'env', name: value };
  if (from === 'file' && value) return { from: 'file', path: path.resolve(value) };
  throw new UserError(`${SUB}: --token-from must be env:NAME or file:PATH, got ${raw}`);
}
