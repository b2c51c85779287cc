import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LoadedConfig } from '../schemas/config.js';
import { InfrastructureError, UserError } from '../core/errors.js';
import { fromRoot } from '../core/paths.js';
import { getRenderer } from '../runtime/interpreter/index.js';
import { templateProbe } from '../runtime/interpreter/template-probe.js';
import { ModelCheckReport, type ModelCheckRequest, type TemplateComparison } from '../schemas/model-check.js';

/**
 * Before a campaign starts: its base model must be a Hugging Face causal-LM directory the stack loads (config,
 * tokenizer, safetensors), and where the checkpoint carries a chat template, that template must render a conversation
 * with tools, calls and results exactly as the interpreter's renderer for `family` does, token for token. Anything
 * else is a UserError that names the directory and, for a template, where the two renderings part.
 */
export async function checkBaseModel(
  config: LoadedConfig,
  modelDir: string,
  family: string,
): Promise<ModelCheckReport> {
  const request: ModelCheckRequest = { modelDir: path.resolve(modelDir), probe: templateProbe(getRenderer(family)) };
  const report = await runModelCheck(config, request);
  if (report.problems.length > 0) {
    throw new UserError(
      `base model ${report.modelDir} is not a Hugging Face causal-LM directory the stack can load:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
  if (report.chatTemplate?.status === 'mismatch')
    throw new UserError(describeMismatch(report.modelDir, family, report.chatTemplate));
  return report;
}

/** One line for the log: what was checked and found. */
export function describeCheck(report: ModelCheckReport): string {
  const template =
    report.chatTemplate?.status === 'match'
      ? `its chat template renders the probe conversation as the interpreter does (${report.chatTemplate.tokens} tokens)`
      : 'no chat template to check';
  return `base model ${report.modelDir} (${report.modelType ?? 'unknown type'}): ${template}`;
}

function describeMismatch(
  modelDir: string,
  family: string,
  m: Extract<TemplateComparison, { status: 'mismatch' }>,
): string {
  const tokens = (list: string[]) =>
    list.map((t, i) => (m.contextStart + i === m.position ? `>>${JSON.stringify(t)}<<` : JSON.stringify(t))).join(' ');
  return [
    `base model ${modelDir}: its chat template renders a conversation with tools differently from the interpreter's "${family}" renderer, so training would see other tokens than the model was trained on.`,
    `  first difference at token ${m.position} (ours: ${m.ourTokens} tokens, template: ${m.templateTokens}); tokens from ${m.contextStart}:`,
    `    ours:     ${tokens(m.ours)}`,
    `    template: ${tokens(m.template)}`,
    `  text around the first differing character (${m.textPosition}):`,
    `    ours:     ${JSON.stringify(m.ourText)}`,
    `    template: ${JSON.stringify(m.templateText)}`,
    'Use a checkpoint whose template matches, fix its chat template (chat_template.jinja or tokenizer_config.json), or register a renderer for its format (runtime/interpreter/registry.ts).',
  ].join('\n');
}

function runModelCheck(config: LoadedConfig, request: ModelCheckRequest): Promise<ModelCheckReport> {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  if (!fs.existsSync(python))
    throw new UserError(`base model check: Python not found at ${python}; run \`npm run setup\``);
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-m', 'finalstate.model_check'], {
      env: { ...process.env, PYTHONPATH: fromRoot('python') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', (err) =>
      reject(new InfrastructureError(`base model check could not start: ${err.message}`, 'python')),
    );
    child.on('close', (code) => {
      if (code !== 0)
        return reject(new InfrastructureError(`base model check failed (exit ${code}):\n${stderr}`, 'python'));
      const parsed = ModelCheckReport.safeParse(JSON.parse(stdout.trim().split('\n').pop() ?? 'null'));
      if (!parsed.success)
        return reject(new InfrastructureError(`base model check printed no report: ${stdout.slice(-500)}`, 'python'));
      resolve(parsed.data);
    });
    child.stdin.end(JSON.stringify(request));
  });
}
