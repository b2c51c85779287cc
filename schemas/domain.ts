import { z } from 'zod';

/** How one column is normalised before grading compares it. */
export const Canonicalization = z.union([
  z.enum(['trim', 'casefold', 'collapse_whitespace']),
  z.object({ enum: z.record(z.string(), z.string()).describe('Map synonyms to one canonical value.') }).strict(),
  z.object({ round: z.number().int().min(0).max(12).describe('Round numbers to this many decimals.') }).strict(),
]);
export type Canonicalization = z.infer<typeof Canonicalization>;

/** Grading policy of one table: rows are keyed by primary key, never aligned by list position. */
export const TableGrading = z
  .object({
    primaryKey: z.array(z.string().min(1)).min(1),
    ignoreColumns: z
      .array(z.string())
      .default([])
      .describe('Columns never compared (free text, timestamps the agent cannot control).'),
    canonicalize: z.record(z.string(), z.array(Canonicalization)).default({}),
  })
  .strict();
export type TableGrading = z.infer<typeof TableGrading>;
