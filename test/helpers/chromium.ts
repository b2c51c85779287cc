import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodePng } from './png.js';

/** Debian's chromium, which infra/setup.sh installs. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium on a throwaway profile. */
export function chromium(args: string[]) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-chromium-'));
  try {
    const flags = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      `--user-data-dir=${profile}`,
    ];
    return spawnSync(CHROMIUM, [...flags, ...args], {
      encoding: 'utf8',
      timeout: 180_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

export interface Screenshot {
  width: number;
  height: number;
  /** Share of pixels darker than near-white: a blank page is about 0. */
  nonWhiteFraction: number;
  /** Distinct colours, counted up to 1000. */
  colours: number;
}

/** Screenshots an HTML file at the given window size (the PNG goes to `pngFile`) and measures how much is drawn. */
export function screenshot(htmlFile: string, pngFile: string, size = { width: 1200, height: 2000 }): Screenshot {
  const shot = chromium([
    `--screenshot=${pngFile}`,
    `--window-size=${size.width},${size.height}`,
    `file://${htmlFile}`,
  ]);
  if (!fs.existsSync(pngFile))
    throw new Error(`chromium wrote no screenshot of ${htmlFile} (exit ${shot.status}): ${shot.stderr}`);
  const png = decodePng(fs.readFileSync(pngFile));
  let nonWhite = 0;
  const colours = new Set<number>();
  for (let i = 0; i < png.pixels.length; i += png.channels) {
    const [r, g, b] = [png.pixels[i]!, png.pixels[i + 1]!, png.pixels[i + 2]!];
    if (r < 240 || g < 240 || b < 240) nonWhite++;
    if (colours.size < 1000) colours.add((r << 16) | (g << 8) | b);
  }
  return {
    width: png.width,
    height: png.height,
    nonWhiteFraction: nonWhite / (png.width * png.height),
    colours: colours.size,
  };
}

/** The DOM Chromium builds from an HTML file, serialised (throws if Chromium fails). */
export function renderedDom(htmlFile: string): string {
  const dom = chromium(['--dump-dom', `file://${htmlFile}`]);
  if (dom.status !== 0) throw new Error(`chromium --dump-dom ${htmlFile} exited ${dom.status}: ${dom.stderr}`);
  return dom.stdout;
}
