import type { Episode } from './episode.js';
import type { SpareDatabases } from './spare-databases.js';

/**
 * The episodes a backend holds, each with its template: how many live episodes each template has (the spare pool
 * grows to it), and which of them got their database from the spare pool (given back to it when they go).
 */
export class LiveEpisodes {
  private readonly live = new Set<Episode>();
  private readonly liveTemplates = new Map<Episode, string>();
  private readonly liveCounts = new Map<string, number>();
  /** Live episodes whose database came from the spare pool. */
  private readonly pooled = new WeakSet<Episode>();

  constructor(private readonly spares: SpareDatabases) {}

  add(episode: Episode, template: string): void {
    this.live.add(episode);
    this.liveTemplates.set(episode, template);
    const count = (this.liveCounts.get(template) ?? 0) + 1;
    this.liveCounts.set(template, count);
    this.spares.live(template, count);
  }

  /** Mark a live episode's database as one the spare pool handed out. */
  fromSpare(episode: Episode): void {
    this.pooled.add(episode);
  }

  /** Forget a live episode; returns its template's name. */
  release(episode: Episode): string | undefined {
    this.live.delete(episode);
    const template = this.liveTemplates.get(episode);
    this.liveTemplates.delete(episode);
    if (template) {
      this.liveCounts.set(template, (this.liveCounts.get(template) ?? 1) - 1);
      if (this.pooled.delete(episode)) this.spares.returned(template);
    }
    return template;
  }

  all(): Episode[] {
    return [...this.live];
  }
}
