/**
 * A task's family: its domain and its first tag. The generators put the task type first (the scenario's `type`,
 * domains/common/generator.ts), then traits that many types share (`refuse`, `read-only`, `multi-write`,
 * `needs-private-facts`), so the first tag says what the task asks and the rest how. The domain qualifies it because
 * types such as `contact_update` exist in several domains.
 */
export function taskFamily(task: { domain: string; tags: readonly string[] }): string {
  return `${task.domain}/${task.tags[0] ?? ''}`;
}
