import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { fromRoot } from '../core/paths.js';
import { exportedSchemas } from './index.js';

/** Write every exported zod schema as JSON Schema, for the Python side and for external tools. */
export function writeJsonSchemas(outDir = fromRoot('schemas', 'json')): string[] {
  fs.mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const [name, schema] of Object.entries(exportedSchemas)) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    const file = path.join(outDir, `${name}.schema.json`);
    fs.writeFileSync(file, `${JSON.stringify({ title: name, ...json }, null, 2)}\n`);
    written.push(file);
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fromRoot('dist', 'schemas', 'export.js')) {
  writeJsonSchemas();
}
