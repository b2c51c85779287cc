import path from 'node:path';
import { manifestTaskLister } from '../../activities/tasks.js';
import { UserError } from '../../core/errors.js';
import { listDomainTools } from '../../environment/tool-listing.js';
import { getRenderer, rendererFamilies } from '../../runtime/interpreter/index.js';
import { domainProbeConversation, templateProbe } from '../../runtime/interpreter/template-probe.js';
import type { TaskSource } from '../../schemas/campaign.js';
import { DEFAULT_CHAT_FAMILY } from '../../schemas/clients.js';
import type { LoadedConfig } from '../../schemas/config.js';
import {
  ModelCheckReport,
  type ModelCheckRequest,
  type TemplateComparison,
  type TemplateProbe,
} from '../../schemas/model-check.js';
import type { Profile } from '../../schemas/task.js';
import { runPythonModule } from '../../infra/python-module.js';
import { defaultRegistry } from '../../workers/registry.js';

/** A domain's tools on a profile: one probe conversation of the model check each. */
export interface ToolSet {
  domain: string;
  profile: Profile;
}

export interface ModelCheck {
  report: ModelCheckReport;
  /** The chat format the campaign uses: the first family whose every probe matches (or the stated/default one). */
  family: string;
  /** Probe conversations per family (the fixed probe, then one per tool set). */
  probes: number;
}

/** The (domain, profile) pairs of the tasks a campaign plays (its training and evaluation sources). */
export async function campaignToolSets(sources: readonly TaskSource[]): Promise<ToolSet[]> {
  const seen = new Map<string, ToolSet>();
  for (const source of sources) {
    for (const task of await manifestTaskLister.list(source.taskSet)) {
      // a ThinkingBox or OpenEnv task's tools are its session's, listed when it plays: there is no pack's tool set to render
      if (task.environment !== 'postgres') continue;
      if (task.split !== source.split || (source.profile && task.profile !== source.profile)) continue;
      if (source.domains && !source.domains.includes(task.domain)) continue;
      seen.set(`${task.domain}/${task.profile}`, { domain: task.domain, profile: task.profile });
    }
  }
  return [...seen.values()].sort((a, b) => `${a.domain}/${a.profile}`.localeCompare(`${b.domain}/${b.profile}`));
}

/**
 * Before a campaign starts: its base model must be a Hugging Face causal-LM directory the stack loads (config,
 * tokenizer, safetensors), and where the checkpoint carries a chat template, one of the interpreter's chat formats
 * must render, token for token as the template does, the fixed probe conversation and one conversation over each
 * tool set's real tools (every tool called, every parameter set). Each registered format is tried, `family` (when the
 * config states one) first; the first that matches everywhere is the campaign's. A template without a tools
 * section is checked on everything around the tool text, which is then the interpreter's (docs/interpreter.md).
 * Anything else is a UserError that names the directory and, for a template, where the renderings part.
 */
export async function checkModel(
  config: LoadedConfig,
  modelDir: string,
  options: { family?: string; toolSets?: readonly ToolSet[] } = {},
): Promise<ModelCheck> {
  const registry = await defaultRegistry({ config });
  const conversations = [
    { name: 'probe', conversation: undefined },
    ...(await Promise.all(
      (options.toolSets ?? []).map(async ({ domain, profile }) => {
        const definition = registry.get(domain);
        const tools = await listDomainTools(definition, profile);
        return {
          name: `domain ${domain} (${profile})`,
          conversation: domainProbeConversation(definition.policy[profile], tools),
        };
      }),
    )),
  ];
  const families = options.family
    ? [options.family, ...rendererFamilies().filter((f) => f !== options.family)]
    : rendererFamilies();
  const request: ModelCheckRequest = {
    modelDir: path.resolve(modelDir),
    candidates: families.map((family) => {
      const renderer = getRenderer(family);
      const probes: TemplateProbe[] = conversations.map(({ name, conversation }) =>
        templateProbe(renderer, conversation, name),
      );
      return { family, probes };
    }),
  };
  const report = await runPythonModule(config, {
    module: 'finalstate.model_check',
    input: request,
    result: ModelCheckReport,
    what: 'base model check',
  });
  if (report.problems.length > 0) {
    throw new UserError(
      `base model ${report.modelDir} is not a Hugging Face causal-LM directory the stack can load:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
  const template = report.chatTemplate;
  const stated = options.family ?? DEFAULT_CHAT_FAMILY;
  if (template === undefined || template.status === 'absent')
    return { report, family: stated, probes: conversations.length };
  const matches = template.formats.filter(
    (f) => f.probes.length === conversations.length && f.probes.every((p) => p.status === 'match'),
  );
  const chosen = matches[0]?.family;
  if (chosen === undefined || (options.family !== undefined && chosen !== options.family)) {
    const preferred = template.formats[0]!;
    const mismatch = preferred.probes.find((p) => p.status === 'mismatch');
    throw new UserError(
      describeMismatch(report.modelDir, preferred.family, mismatch, chosen, template.toolsSection === 'interpreter'),
    );
  }
  return { report, family: chosen, probes: conversations.length };
}

/** One line for the log: what was checked and found. */
export function describeCheck(check: ModelCheck): string {
  const { report } = check;
  const template = report.chatTemplate;
  let text = 'no chat template to check';
  if (template?.status === 'checked') {
    const chosen = template.formats.find((f) => f.family === check.family)!;
    const tokens = chosen.probes.reduce((sum, p) => sum + (p.status === 'match' ? p.tokens : 0), 0);
    text =
      `its chat template renders ${check.probes} probe conversation(s) (${tokens} tokens) as the interpreter's "${check.family}" format does` +
      (template.toolsSection === 'interpreter'
        ? "; it has no tools section, so tools, calls and results are the interpreter's"
        : '');
  }
  return `base model ${report.modelDir} (${report.modelType ?? 'unknown type'}): ${text}`;
}

function describeMismatch(
  modelDir: string,
  family: string,
  m: Extract<TemplateComparison, { status: 'mismatch' }> | undefined,
  matching: string | undefined,
  interpreterTools: boolean,
): string {
  const lines = [
    `base model ${modelDir}: its chat template renders a conversation with tools differently from the interpreter's "${family}" renderer, so training would see other tokens than the model was trained on.`,
  ];
  if (m) {
    const tokens = (list: string[]) =>
      list
        .map((t, i) => (m.contextStart + i === m.position ? `>>${JSON.stringify(t)}<<` : JSON.stringify(t)))
        .join(' ');
    lines.push(
      `  probe "${m.name}"${interpreterTools ? " (the template has no tools section: tools, calls and results are the interpreter's text)" : ''}: first difference at token ${m.position} (ours: ${m.ourTokens} tokens, template: ${m.templateTokens}); tokens from ${m.contextStart}:`,
      `    ours:     ${tokens(m.ours)}`,
      `    template: ${tokens(m.template)}`,
      `  text around the first differing character (${m.textPosition}):`,
      `    ours:     ${JSON.stringify(m.ourText)}`,
      `    template: ${JSON.stringify(m.templateText)}`,
    );
  }
  lines.push(
    matching
      ? `The interpreter's "${matching}" format matches this template: set policy.client.family to "${matching}" (or leave it out and the check chooses).`
      : `No registered format (${rendererFamilies().join(', ')}) matches. Use a checkpoint whose template matches, fix its chat template (chat_template.jinja or tokenizer_config.json), or register a renderer for its format (runtime/interpreter/registry.ts).`,
  );
  return lines.join('\n');
}
