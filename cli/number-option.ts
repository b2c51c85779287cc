import { UserError } from '../core/errors.js';

/** An optional integer flag value, at least `min`; a bad value is a user error naming the command and flag. */
export function integerOption(
  value: string | undefined,
  flag: string,
  command: string,
  min: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min)
    throw new UserError(`finalstate ${command}: --${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** An optional number flag value in [min, max]. */
export function numberOption(
  value: string | undefined,
  flag: string,
  command: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new UserError(
      `finalstate ${command}: --${flag} must be a number in [${min}, ${max}], got ${JSON.stringify(value)}`,
    );
  return n;
}

/** `--training-domains a,b`: the option object of stats' metrics and comparisons (absent: no in/out-of-domain split). */
export function domainsOption(value: string | undefined): { trainingDomains?: string[] } {
  if (value === undefined) return {};
  const domains = value
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  if (domains.length === 0)
    throw new UserError(`--training-domains needs at least one domain, got ${JSON.stringify(value)}`);
  return { trainingDomains: domains };
}
