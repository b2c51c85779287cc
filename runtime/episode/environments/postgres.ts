import type { EnvironmentBackend, Episode } from '../../../environment/backend.js';
import { connectEpisodeTools } from '../../../environment/episode-tools.js';
import type { ExpectedStates } from '../../../environment/expected-state.js';
import { checkFinalState } from '../../../environment/grader.js';
import type { TurnCheckpoint } from '../../../schemas/checkpoint.js';
import type { EpisodeRequest } from '../../../schemas/episode.js';
import { taskEnvironment, type Task } from '../../../schemas/task.js';
import { ChatClient } from '../../clients/chat-client.js';
import { LlmJudge } from '../../rubrics/judge.js';
import { EpisodeCheckpoints } from '../checkpoint.js';
import type { EnvironmentTools, EpisodeEnvironment, OpenEnvironment, PlayedEpisode } from '../environment.js';
import { McpToolSession } from '../mcp-tool-session.js';
import { scoreEpisode, type EpisodeScore } from '../scoring.js';

/**
 * A fresh PostgreSQL database per episode (copied from the domain's template, plus the task's init), the domain's
 * tools served over MCP in-process, graded by the final-state check (environment/grader.ts). Turn checkpoints live in
 * the episode database itself (checkpoint.ts).
 */
export class PostgresEnvironment implements EpisodeEnvironment {
  constructor(
    readonly backend: EnvironmentBackend,
    private readonly expectedStates: ExpectedStates,
  ) {}

  plays(task: Task): boolean {
    return taskEnvironment(task) === 'postgres';
  }

  async open(episodeId: string, task: Task, options: { attempt?: number }): Promise<OpenEnvironment> {
    const episode = await this.backend.open(episodeId, task, options);
    return new OpenPostgresEpisode(this.backend, this.expectedStates, episode, task);
  }
}

class OpenPostgresEpisode implements OpenEnvironment {
  private readonly checkpoints: EpisodeCheckpoints;

  constructor(
    private readonly backend: EnvironmentBackend,
    private readonly expectedStates: ExpectedStates,
    readonly episode: Episode,
    task: Task,
  ) {
    this.checkpoints = new EpisodeCheckpoints(episode);
    this.system = backend.registry.get(task.domain).policy[task.profile];
  }

  readonly system: string;
  readonly rules = {};

  get episodeId(): string {
    return this.episode.episodeId;
  }

  get reattached(): boolean {
    return this.episode.reattached;
  }

  loadCheckpoint(): Promise<TurnCheckpoint | undefined> {
    return this.checkpoints.load();
  }

  saveCheckpoint(checkpoint: TurnCheckpoint): Promise<void> {
    return this.checkpoints.save(checkpoint);
  }

  async connectTools(): Promise<EnvironmentTools> {
    const wiring = await connectEpisodeTools(this.backend, this.episode);
    return new McpToolSession(wiring.client, () => wiring.close());
  }

  async score(played: PlayedEpisode, request: EpisodeRequest): Promise<EpisodeScore> {
    return scoreEpisode({
      check: await checkFinalState(this.backend, this.expectedStates, this.episode),
      rubrics: this.episode.task.rubrics,
      conversation: played.conversation,
      finishReason: played.finishReason,
      ...(request.judge
        ? { judge: new LlmJudge(new ChatClient(request.judge.endpoint, 'judge'), request.judge.seed) }
        : {}),
    });
  }

  underLease<T>(fn: () => Promise<T>): Promise<T> {
    return this.backend.underLease(this.episode, fn);
  }

  detach(): Promise<void> {
    return this.backend.detach(this.episode);
  }

  teardown(): Promise<void> {
    return this.backend.teardown(this.episode);
  }
}
