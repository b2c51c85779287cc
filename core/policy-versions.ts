/**
 * Policy versions and the staleness window of asynchronous steps. Plain functions, so the workflow bundle imports
 * them (workflows/campaign/async-steps.ts, workflows/groups.ts) as do the activities, the policy client and bench/cluster-sim.
 *
 * A policy version is the number of the step whose update made it; the base policy is version 0. Servers report a
 * version as a string: the published step number, or for the weights a server started with, vLLM's "default" (or,
 * from older records, a model name), which is the base policy.
 */

/** The version of the base policy: the weights every rollout server starts with. */
export const BASE_VERSION = 0;

/** The version number of a version string a server or a trajectory reports: a step number, else the base policy. */
export function versionNumber(reported: string | undefined): number {
  return reported !== undefined && /^\d+$/.test(reported) ? Number(reported) : BASE_VERSION;
}

/**
 * The oldest version whose turns the update that makes version `step` may train on, with at most `maxStaleness`
 * (K) versions between: u - 1 - K. K = 0 is the synchronous step: only the version the update starts from.
 */
export function oldestUsableVersion(step: number, maxStaleness: number): number {
  return Math.max(BASE_VERSION, step - 1 - maxStaleness);
}

/**
 * Whether step `step`'s rollouts may start once version `published` serves: when every turn they can sample is
 * inside the step's window, i.e. the oldest version they may meet is published. The campaign also waits for the
 * previous step's rollouts to be collected, so at most one step collects at a time.
 */
export function rolloutsMayStart(step: number, maxStaleness: number, published: number): boolean {
  return published >= oldestUsableVersion(step, maxStaleness);
}

/** The oldest version among an outcome's turns ("3" or "2,3", as EpisodeOutcome.policyVersion lists them). */
export function oldestVersionOf(versions: string | undefined): number | undefined {
  if (versions === undefined || versions === '') return undefined;
  return Math.min(...versions.split(',').map((v) => versionNumber(v.trim())));
}

/**
 * The version a server reports serving, as a number: a step number, or vLLM's "default" (the weights it started with:
 * the base policy). Undefined for anything else, e.g. "reloading-N" while a publish is under way: no version at all.
 */
export function servedVersionNumber(reported: string): number | undefined {
  if (reported === 'default') return BASE_VERSION;
  return /^\d+$/.test(reported) ? Number(reported) : undefined;
}

/**
 * A LoRA campaign (update.lora) serves version n >= 1 as the adapter named `<prefix><n>`, the prefix
 * `<campaignId>-v`; version 0 is the base model the servers started with. A completion that names the adapter is
 * served by exactly that version.
 */
export const adapterPrefixOf = (campaignId: string): string => `${campaignId}-v`;

export const adapterName = (prefix: string, version: number): string => `${prefix}${version}`;

/** The version an adapter name holds (`<prefix><n>`), else undefined (another campaign's, or not an adapter). */
export function adapterVersionOf(prefix: string, name: string): number | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^[1-9]\d*$/.test(rest) ? Number(rest) : undefined;
}
