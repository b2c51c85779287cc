import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { ENV_OVERRIDES } from '../../schemas/config.js';
import { commands } from '../../cli/commands/index.js';

const readme = fs.readFileSync(fromRoot('README.md'), 'utf8');

test('the README configuration table names every environment override and its key', () => {
  for (const { env, path } of ENV_OVERRIDES) {
    assert.ok(readme.includes(`\`${env}\``), `README lacks ${env}`);
    assert.ok(readme.includes(`\`${path}\``), `README lacks ${path}`);
  }
});

test('the README quickstart has exactly the two commands, and package.json defines them', () => {
  const quickstart = readme.split('## Quickstart')[1]!.split('```bash')[1]!.split('```')[0]!.trim().split('\n');
  assert.deepEqual(
    quickstart.map((line) => line.split('#')[0]!.trim()),
    ['npm run demo', 'npm test'],
  );
  const pkg = JSON.parse(fs.readFileSync(fromRoot('package.json'), 'utf8')) as {
    scripts: Record<string, string>;
    bin: Record<string, string>;
  };
  assert.ok(pkg.scripts.demo && pkg.scripts.test);
  assert.equal(pkg.bin.finalstate, 'bin/finalstate.js');
});

test('every CLI command is listed in docs/ARCHITECTURE.md', () => {
  const architecture = fs.readFileSync(fromRoot('docs', 'ARCHITECTURE.md'), 'utf8');
  for (const command of commands)
    assert.ok(architecture.includes(`\`${command.name}\``), `ARCHITECTURE.md lacks the ${command.name} command`);
});

/** GitHub's anchors of a Markdown file's headings (outside code fences): lower case, punctuation dropped, `-` for spaces. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

test('every link to a section in the README and docs/ names a file and a heading that exist', () => {
  const pages = [
    'README.md',
    ...fs
      .readdirSync(fromRoot('docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const broken: string[] = [];
  for (const page of pages) {
    const text = fs.readFileSync(fromRoot(page), 'utf8');
    for (const [link, file, anchor] of text.matchAll(/\]\(([^()\s#]*\.md)?#([^()\s]+)\)/g)) {
      const target = file ? path.join(path.dirname(page), file) : page;
      if (!fs.existsSync(fromRoot(target))) broken.push(`${page}: ${link} (no file ${target})`);
      else if (!headingAnchors(fs.readFileSync(fromRoot(target), 'utf8')).has(anchor!))
        broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the README asks for the Python that python/pyproject.toml requires, and the venv setup made has it', () => {
  const stated = /Python (\d+)\.(\d+)\+/.exec(readme);
  assert.ok(stated, 'the README names no Python version ("Python X.Y+")');
  const pyproject = fs.readFileSync(fromRoot('python', 'pyproject.toml'), 'utf8');
  const required = /^requires-python\s*=\s*">=(\d+)\.(\d+)"/m.exec(pyproject);
  assert.ok(required, 'python/pyproject.toml has no requires-python = ">=X.Y"');
  assert.equal(`${stated[1]}.${stated[2]}`, `${required[1]}.${required[2]}`, 'README vs python/pyproject.toml');
  const venv = spawnSync(fromRoot('.venv', 'bin', 'python'), ['-c', 'import sys; print(*sys.version_info[:2])'], {
    encoding: 'utf8',
  });
  const [major, minor] = venv.stdout.trim().split(' ').map(Number);
  assert.ok(
    major! > Number(required[1]) || (major === Number(required[1]) && minor! >= Number(required[2])),
    `.venv has Python ${major}.${minor}, below the ${required[1]}.${required[2]} that python/pyproject.toml requires`,
  );
});
