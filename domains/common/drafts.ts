import type { Prng } from './prng.js';
import type { ToolCall } from '../../schemas/task.js';

/** Small building blocks both domains' task generators use. */

export const call = (tool: string, args: Record<string, unknown>): ToolCall => ({ tool, arguments: args });

/** A literal for the SQL assertions (ids come from the generator, never from users). */
export const sqlString = (value: string): string => `'${value.replace(/'/g, "''")}'`;

export interface Assertion {
  description: string;
  sql: string;
  expect: Record<string, unknown>[];
}

/** How a full-profile user introduces themselves: with the e-mail in the query, or only when asked (a private fact). */
export function introduce(
  rng: Prng,
  fullName: string,
  email: string,
): { intro: string; facts: Record<string, string> } {
  if (rng.chance(0.5)) return { intro: `Hi, this is ${fullName} (${email}).`, facts: {} };
  return { intro: `Hi, this is ${fullName}.`, facts: { email } };
}

/** The user simulator's brief: persona and goal, the facts it may reveal when asked, and how to behave. */
export function userBrief(persona: string, goal: string, facts: Record<string, string>): string {
  const known = Object.entries(facts)
    .map(([k, v]) => `- ${k.replace(/_/g, ' ')}: ${v}`)
    .join('\n');
  return [
    `You are ${persona}. Your goal: ${goal}`,
    known ? `If the agent asks, you can give:\n${known}` : 'You have no further details to add.',
    'Do not invent other data. Stay on your goal. Accept the outcome the agent explains if it follows the policy.',
  ].join('\n');
}

/** Day counts offset from a rule's boundary, so that no task sits on an off-by-one edge. */
export const withinDays = (rng: Prng, limit: number) => rng.int(1, limit - 2);
export const beyondDays = (rng: Prng, limit: number) => rng.int(limit + 2, limit + 25);
