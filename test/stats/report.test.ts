import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { StepSummary } from '../../schemas/results.js';
import { trainingSpend } from '../../stats/cost-with-training.js';
import { evalPointOf } from '../../stats/eval-point.js';
import { writeReport, type WrittenReport } from '../../stats/report/index.js';
import { groupByTask } from '../../stats/result-set.js';
import { selectPool } from '../../stats/selection.js';
import { CHROMIUM, renderedDom, screenshot } from '../helpers/chromium.js';
import { referenceResultSets } from './reference-experiment.js';

let dir: string;
/** Tables every report has, by their HTML ids. */
const TABLE_IDS = [
  'table-comparison',
  'table-comparison-by-domain',
  'table-cost',
  'table-flips',
  'table-pool',
  'table-coverage',
  'table-coverage-by-family',
  'table-coverage-tasks',
];
let report: WrittenReport;

// A step that failed and waits for replay-step: the report says so with its whole cause (core/failure-causes.ts).
const FAILED_STEP =
  'workflow grpoStep ref/step-31: activity publishPolicy (not retried): IncompleteCheckpoint: not publishing policy version 31: checkpoint /c/step-000031: adapter_model.safetensors has 40660 bytes but its header covers 81320 (truncated). Remove the directory and replay the step (the update writes it again).';

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-report-'));
  const { before: base, after: trained } = referenceResultSets();
  // Synthetic training curves (named as such): the report only draws them.
  const steps: StepSummary[] = Array.from({ length: 30 }, (_, i) => ({
    step: i + 1,
    meanReward: 0.45 + 0.01 * i,
    informativeFraction: 0.8 - 0.005 * i,
    loss: 0.05 * Math.cos(i / 3),
    clipFraction: 0.02 + 0.001 * (i % 5),
  }));
  const pool = selectPool(groupByTask(base)).records;
  report = writeReport(
    {
      title: 'Reference experiment (synthetic rows)',
      base,
      trained,
      steps,
      evalPoints: [evalPointOf(0, base), evalPointOf(30, trained)],
      pool,
      failedStep: { step: 31, message: FAILED_STEP },
      generatedAt: 'test',
    },
    dir,
  );
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a failed step is in the report, its cause whole', () => {
  const text = `Step 31 failed and waits for replay-step: ${FAILED_STEP}`;
  assert.ok(fs.readFileSync(report.html, 'utf8').includes(`<p>${text}</p>`));
  assert.ok(fs.readFileSync(report.markdown, 'utf8').includes(`\n${text}\n`));
});

test('the HTML is self-contained and the Markdown twin has the same tables', () => {
  const html = fs.readFileSync(report.html, 'utf8');
  assert.doesNotMatch(html, /<script|<link|src="http|href="http/, 'no scripts or external resources');
  for (const id of TABLE_IDS) assert.match(html, new RegExp(`id="${id}"`));
  assert.equal(
    (html.match(/<svg /g) ?? []).length,
    7,
    'eval and mean reward beside the tables, four training curves, pool histogram',
  );
  assert.match(html, /51\.70%/);
  assert.match(html, /step 0: 51\.70%, step 30: 60\.78%/, 'the evaluation points');
  assert.match(html, /60\.78%/);
  assert.match(html, /24\.36 \$/);
  assert.match(html, /8\.00 \$/);
  const md = fs.readFileSync(report.markdown, 'utf8');
  assert.match(md, /\| pass@1 \| 51\.70% \| 60\.78% \| \+9\.08 pts \|/);
  assert.match(md, /\| tasks passed 20\/20 \| 7\.50% \(38\) \| 21\.10% \(107\) \|/);
  assert.equal(report.charts.length, 7);
  for (const chart of report.charts) {
    assert.ok(fs.existsSync(chart));
    assert.match(md, new RegExp(`report-charts/${path.basename(chart)}`));
  }
});

test('headless Chromium renders the report: a non-blank screenshot and the tables in the DOM', () => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run infra/setup.sh (it installs Debian's chromium)`);
  const shot = screenshot(report.html, path.join(dir, 'screenshot.png'));
  assert.equal(shot.width, 1200);
  assert.equal(shot.height, 2000);
  assert.ok(
    shot.nonWhiteFraction > 0.01,
    `screenshot is blank (${(100 * shot.nonWhiteFraction).toFixed(2)}% non-white pixels)`,
  );
  assert.ok(shot.colours > 20, `screenshot has only ${shot.colours} colours`);

  const dom = renderedDom(report.html);
  for (const id of TABLE_IDS) assert.match(dom, new RegExp(`<table id="${id}"`));
  assert.match(dom, /<svg[^>]+id="chart-pass1-per-eval"/);
  assert.match(dom, /<svg[^>]+id="chart-pool-difficulty"/);
  assert.match(dom, /<td>pass@1<\/td><td class="num">51\.70%<\/td>/);
});

test('episode links: each step, each flipped task (an episode of each side) and each failure links to its page', () => {
  const { before: base, after: trained } = referenceResultSets();
  const link = (side: string, r: (typeof base)[number], i: number) => ({
    episodeId: `c/${side}/${r.taskId}/t${r.trial}`,
    taskId: r.taskId,
    trial: r.trial,
    reward: r.reward,
    error: r.error,
    finishReason: 'agent_done',
    summary: `${r.taskId} t${r.trial} · reward ${r.reward} · agent_done`,
    ...(i % 2 === 0 || r.reward === 0 ? { href: `episodes/${side}-${i}.html` } : {}),
  });
  const episodes = {
    base: base.map((r, i) => link('base', r, i)),
    trained: trained.map((r, i) => link('trained', r, i)),
    steps: [{ step: 1, href: 'episodes/step-1.html', episodes: 32, passed: 12 }],
  };
  const steps: StepSummary[] = [
    {
      step: 1,
      meanReward: 0.375,
      informativeFraction: 0.5,
      loss: 0.01,
      clipFraction: 0,
      approxKl: 0.002,
      truncatedTurns: 3,
      replacements: 1,
      refills: 0,
      infraFailures: 0,
      wallSeconds: { rollouts: 10, batch: 1, update: 5, publish: 1, total: 17 },
    },
  ];
  const out = fs.mkdtempSync(path.join(dir, 'links-'));
  const written = writeReport(
    {
      title: 't',
      base,
      trained,
      steps,
      evalPoints: [],
      pool: [],
      episodes,
      training: trainingSpend('c', [], steps),
      domainEvalPoints: [
        { step: 0, domain: 'retail', pass1: 0.5 },
        { step: 0, domain: 'travel', pass1: 0.25 },
      ],
      generatedAt: 'test',
    },
    out,
  );
  const dom = renderedDom(written.html);
  assert.match(
    dom,
    /<td class="num"><a href="episodes\/step-1\.html">12\/32 passed<\/a><\/td>/,
    'the step row links to its episode index',
  );
  const failureLinks =
    dom
      .match(/<section class="table" id="failures">[\s\S]*?<\/section>/)![0]
      .match(/<a href="episodes\/trained-\d+\.html">/g) ?? [];
  const trainedFailures = trained.filter((r) => r.reward === 0 || r.error !== null).length;
  assert.equal(failureLinks.length, Math.min(100, trainedFailures), 'every listed failure links to its page');
  const flips = written.document.comparison.flips;
  const flipped = new Set([...flips.kk.gained, ...flips.kk.lost, ...flips.coverage.gained, ...flips.coverage.lost])
    .size;
  assert.ok(flipped > 0);
  const flipRows =
    dom.match(/<section class="table" id="flipped-tasks">[\s\S]*?<\/section>/)![0].match(/<tr><td>/g) ?? [];
  assert.equal(flipRows.length, flipped, 'one row per flipped task');
  const coverage = written.document.comparison.coverage;
  assert.ok(coverage.lost.length > 0);
  const coverageRows =
    dom.match(/<section class="table" id="coverage-tasks">[\s\S]*?<\/section>/)![0].match(/<tr><td>/g) ?? [];
  assert.equal(coverageRows.length, coverage.lost.length + coverage.gained.length, 'one row per coverage flip');
  assert.match(dom, /<table id="table-cost-with-training"/);
  assert.match(dom, /<table id="table-coverage-entropy"/);
  assert.match(dom, /<svg[^>]+id="chart-approx-kl"/);
  assert.match(dom, /Per domain: retail 50%; travel 25%\./);
  assert.match(fs.readFileSync(written.markdown, 'utf8'), /\[12\/32 passed\]\(episodes\/step-1\.html\)/);
});
