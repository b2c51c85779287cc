#!/usr/bin/env node
// Entry point of the `finalstate` CLI. The TypeScript sources are compiled to dist/ by `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(compiled)) {
  console.error('finalstate: not built yet; run `npm run setup` (or `npm run build`) first');
  process.exit(2);
}
const { main } = await import(compiled);
process.exitCode = await main(process.argv.slice(2));
