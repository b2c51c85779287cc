import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { checkModel } from '../../cli/model/model-check.js';
import { loadConfig } from '../../workers/config.js';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';

// The interpreter's real rendering (runtime/interpreter/qwen3.ts) of the probe conversation against a checkpoint's chat
// template, through Python's transformers: the template the base model ships (Qwen3 format, written for this project:
// python/finalstate/base_model/chat_template.py) must match token for token; a changed one is refused, naming where.
const config = loadConfig();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-model-check-'));
const modelDir = path.join(workDir, 'model');

before(() => {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  const built = spawnSync(python, ['-m', 'finalstate.testing.tiny_model', modelDir, '--qwen3-chat-template'], {
    env: { ...process.env, PYTHONPATH: fromRoot('python') },
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, built.stderr);
});

after(() => fs.rmSync(workDir, { recursive: true, force: true }));

test("the base model's chat template renders the probe conversation (tools, calls, results) as the interpreter does", async () => {
  const { report, family } = await checkModel(config, modelDir);
  assert.equal(report.modelType, 'qwen3');
  assert.equal(family, 'qwen3');
  assert.equal(report.chatTemplate?.status, 'checked');
  assert.equal(report.chatTemplate.toolsSection, 'template');
  const [qwen3] = report.chatTemplate.formats;
  assert.equal(qwen3?.probes[0]?.status, 'match');
  assert.ok(qwen3.probes[0].status === 'match' && qwen3.probes[0].tokens > 300);
});

test('a template that writes tool calls differently is refused with the first differing token and the text around it', async () => {
  const file = path.join(modelDir, 'chat_template.jinja');
  const template = fs.readFileSync(file, 'utf8');
  // Compact JSON for call arguments: the kind of difference a model's makers' template can have.
  fs.writeFileSync(
    file,
    template.replace('(call.function.arguments | tojson)', "(call.function.arguments | tojson(separators=(',', ':')))"),
  );
  try {
    await assert.rejects(checkModel(config, modelDir, { family: 'qwen3' }), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(
        err.message,
        /its chat template renders a conversation with tools differently from the interpreter's "qwen3" renderer/,
      );
      assert.match(err.message, /probe "probe": first difference at token \d+ \(ours: \d+ tokens, template: \d+\)/);
      assert.match(err.message, /ours: {5}.*>>".*"<</);
      assert.match(err.message, /ours: {5}".*\\"arguments\\": \{\\"order_id\\": \\"ORD-7\\"\}/);
      assert.match(err.message, /template: ".*\\"arguments\\": \{\\"order_id\\":\\"ORD-7\\"\}/);
      return true;
    });
  } finally {
    fs.writeFileSync(file, template);
  }
});
