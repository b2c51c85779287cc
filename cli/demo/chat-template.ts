import path from 'node:path';
import { z } from 'zod';
import { runPythonModule } from '../../infra/python-module.js';
import type { LoadedConfig } from '../../schemas/config.js';
import type { ModelCheck } from '../model/model-check.js';

/**
 * vLLM's extra arguments for its chat API. vLLM renders chat requests (the LLM user, a reference probe on the same
 * server) with the model's own template; a template without a tools section (SmolLM2's) silently drops the campaign's
 * tools. The model check then matched the interpreter's format on everything around the tools, so vLLM is given that
 * format as its template (`--chat-template`), and its chat API renders tools, calls and results as the agent's own
 * prompts do. Only the qwen3 format exists as a template (python/finalstate/base_model/chat_template.py).
 */
export async function chatApiArgs(
  config: LoadedConfig,
  checked: ModelCheck,
  vllmArgs: readonly string[],
  log: (line: string) => void,
): Promise<string[]> {
  const template = checked.report.chatTemplate;
  if (template?.status !== 'checked' || template.toolsSection !== 'interpreter') return [...vllmArgs];
  if (vllmArgs.some((arg) => arg === '--chat-template' || arg.startsWith('--chat-template='))) return [...vllmArgs];
  if (checked.family !== 'qwen3') {
    log(
      `chat API: the base model's template has no tools section and the "${checked.family}" format has no template to give vLLM; its chat API will not show the tools`,
    );
    return [...vllmArgs];
  }
  const file = path.join(config.dataPath, 'demo', 'chat-templates', 'qwen3.jinja');
  await runPythonModule(config, {
    module: 'finalstate.base_model.chat_template',
    args: [file],
    result: z.object({ path: z.string() }),
    what: 'chat template',
  });
  log(
    `chat API: the base model's template has no tools section; vLLM renders chat requests with the interpreter's "qwen3" format (${file})`,
  );
  return [...vllmArgs, '--chat-template', file];
}
