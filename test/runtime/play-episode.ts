import type { Episode } from '../../environment/backend.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { ExpectedStates } from '../../environment/expected-state.js';
import { checkFinalState } from '../../environment/grader.js';
import { ScriptedUserSimulator } from '../../runtime/clients/scripted-user.js';
import { runAgentLoop } from '../../runtime/episode/loop.js';
import { McpToolSession } from '../../runtime/episode/mcp-tool-session.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import type { AgentPolicy } from '../../runtime/policy/agent-policy.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';
import { uniqueName } from '../helpers/index.js';

/**
 * One episode of `policy` on a fresh real backend for `task`: its tools over an in-process MCP session, the agent
 * loop with the deterministic user, grading, the executor's records; `inspect` sees the database before teardown.
 */
export async function playEpisode(
  runtime: EpisodeRuntime,
  task: Task,
  policy: AgentPolicy,
  options: { limits?: Partial<EpisodeLimits>; inspect?: (episode: Episode) => Promise<void> } = {},
) {
  const backend = runtime.backend;
  const episode = await backend.open(uniqueName(`play-${task.tags[0]}`), task);
  try {
    const wiring = await connectEpisodeTools(backend, episode);
    const tools = new McpToolSession(wiring.client, () => wiring.close());
    let loop;
    try {
      loop = await runAgentLoop({
        system: 'test',
        policy,
        tools,
        user: new ScriptedUserSimulator(task),
        limits: EpisodeLimits.parse(options.limits ?? {}),
      });
    } finally {
      await tools.close();
    }
    const grade = await checkFinalState(backend, new ExpectedStates(backend), episode);
    const recorded = await wiring.executor.recorded();
    await options.inspect?.(episode);
    return {
      loop,
      tools,
      grade,
      recorded,
      toolTurns: loop.conversation.turns.filter((t) => t.role === 'tool').map((t) => t.content),
    };
  } finally {
    await backend.teardown(episode);
  }
}
