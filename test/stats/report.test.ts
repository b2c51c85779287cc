import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { StepSummary } from '../../schemas/results.js';
import { evalPointOf } from '../../stats/evalPoint.js';
import { writeReport, type WrittenReport } from '../../stats/report/index.js';
import { groupByTask } from '../../stats/resultSet.js';
import { selectPool } from '../../stats/selection.js';
import { CHROMIUM, renderedDom, screenshot } from '../helpers/chromium.js';
import { referenceResultSets } from './referenceExperiment.js';

let dir: string;
let report: WrittenReport;

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
  report = writeReport({ title: 'Reference experiment (synthetic rows)', base, trained, steps, evalPoints: [evalPointOf(0, base), evalPointOf(30, trained)], pool, generatedAt: 'test' }, dir);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the HTML is self-contained and the Markdown twin has the same tables', () => {
  const html = fs.readFileSync(report.html, 'utf8');
  assert.doesNotMatch(html, /<script|<link|src="http|href="http/, 'no scripts or external resources');
  for (const id of ['table-comparison', 'table-comparison-by-domain', 'table-cost', 'table-flips', 'table-pool']) assert.match(html, new RegExp(`id="${id}"`));
  assert.equal((html.match(/<svg /g) ?? []).length, 6, 'eval, four training curves, pool histogram');
  assert.match(html, /51\.70%/);
  assert.match(html, /step 0: 51\.70%, step 30: 60\.78%/, 'the evaluation points');
  assert.match(html, /60\.78%/);
  assert.match(html, /24\.36 \$/);
  assert.match(html, /8\.00 \$/);
  const md = fs.readFileSync(report.markdown, 'utf8');
  assert.match(md, /\| pass@1 \| 51\.70% \| 60\.78% \| \+9\.08 pts \|/);
  assert.match(md, /\| tasks passed 20\/20 \| 7\.50% \(38\) \| 21\.10% \(107\) \|/);
  assert.equal(report.charts.length, 6);
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
  assert.ok(shot.nonWhiteFraction > 0.01, `screenshot is blank (${(100 * shot.nonWhiteFraction).toFixed(2)}% non-white pixels)`);
  assert.ok(shot.colours > 20, `screenshot has only ${shot.colours} colours`);

  const dom = renderedDom(report.html);
  for (const id of ['table-comparison', 'table-comparison-by-domain', 'table-cost', 'table-flips', 'table-pool']) assert.match(dom, new RegExp(`<table id="${id}"`));
  assert.match(dom, /<svg[^>]+id="chart-pass1-per-eval"/);
  assert.match(dom, /<svg[^>]+id="chart-pool-difficulty"/);
  assert.match(dom, /<td>pass@1<\/td><td class="num">51\.70%<\/td>/);
});
