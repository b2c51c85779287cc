/** The environment layer's public API (see docs/environment.md). */
export { EnvironmentBackend, type BackendOptions, type Episode } from './backend.js';
export type { DomainDefinition, ToolContext, ToolDefinition } from './domain.js';
export { ToolRejection } from './domain.js';
export { DomainRegistry } from './registry.js';
export { EpisodeToolExecutor, type ToolOutcome, type RecordedToolCall } from './tool-executor.js';
export { createEpisodeMcpServer } from './mcp-server.js';
export { EpisodeMcpClient, type ToolCallResult, type ToolInfo } from './mcp-client.js';
export { connectEpisodeTools, type EpisodeTools } from './episode-tools.js';
export { serveStdio } from './mcp-serve.js';
export { serveHttp, writeTokenFile, type HttpMcpEndpoint } from './mcp-http.js';
export { ExpectedStates, GoldenCallError, type ExpectedState } from './expected-state.js';
/** Check an episode's final state; runtime/episode/scoring.ts turns the check and the rubrics into the reward. */
export { checkFinalState, finalStateHolds } from './grader.js';
export { readTaskSet, readTaskSets, writeTaskSet, TaskSetError, type TaskIssue } from './task-set.js';
export { validateTaskSetFile, checkTaskAgainstDomain } from './task-validation.js';
export { verifyTasks, mutationsOf, type VerifyReport } from './verify.js';
export { sweepLeakedEpisodes } from './janitor.js';
