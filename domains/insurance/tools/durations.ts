import { daysBetween } from 'finalstate/domain';

/** Whole years from a date of birth (YYYY-MM-DD) to `now`: the agent cannot see the clock, so tools report ages. */
export function ageYears(dateOfBirth: string, now: Date): number {
  const born = new Date(`${dateOfBirth}T00:00:00Z`);
  let age = now.getUTCFullYear() - born.getUTCFullYear();
  const birthdayPassed =
    now.getUTCMonth() > born.getUTCMonth() ||
    (now.getUTCMonth() === born.getUTCMonth() && now.getUTCDate() >= born.getUTCDate());
  if (!birthdayPassed) age--;
  return age;
}

/** Whole days from a calendar date (YYYY-MM-DD) to `now`. */
export function daysSinceDate(date: string, now: Date): number {
  return daysBetween(new Date(`${date}T00:00:00Z`), now);
}
