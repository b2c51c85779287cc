import { z } from 'zod';

/**
 * The OpenEnv part of a task (Task.openenv): an episode played on an environment served over OpenEnv (openenv-core's
 * WebSocket session: reset, step, close), any OpenEnv server, finalstate's own `env serve --openenv` included. The
 * episode's tools are the environment's MCP tools, its opening message the reset observation's, its reward the
 * terminal step's (runtime/episode/environments/openenv.ts). Written by `finalstate tasks import-openenv`.
 */
export const OpenEnvTaskPart = z
  .object({
    url: z
      .url({ protocol: /^(https?|wss?)$/ })
      .describe("The environment server's base URL (http(s):// or ws(s)://; its WebSocket session is <url>/ws)."),
    reset: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'The reset kwargs that pick this task: a task id or a seed to draw (e.g. {"task_id": "retail-001"} or {"seed": 7}).',
      ),
    token: z
      .discriminatedUnion('from', [
        z.object({ from: z.literal('env'), name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) }).strict(),
        z.object({ from: z.literal('file'), path: z.string().min(1) }).strict(),
      ])
      .optional()
      .describe(
        'Where the episode worker reads a bearer token for the server (an environment variable or a file); never the token itself.',
      ),
    messages: z
      .enum(['message', 'final'])
      .default('message')
      .describe(
        'How the agent\'s plain messages are answered. message: sent as {"type":"message","content"}, the reply read from the observation\'s user_message (a done step ends the episode), and {"type":"finish"} when the conversation ends. final (a tools-only environment): the agent\'s first plain message is its final answer and ends the conversation, submitted with `submit` when given; the reward is that of the step that reported done.',
      ),
    submit: z
      .object({
        tool: z.string().min(1).describe('The tool the final answer is passed to.'),
        argument: z.string().min(1).describe('The argument that carries the answer text.'),
      })
      .strict()
      .optional()
      .describe('messages final: submit the final answer with this tool call (e.g. submit_answer(answer)).'),
    promptField: z
      .string()
      .min(1)
      .default('user_message')
      .describe("The reset observation's field that holds the user's first message."),
    systemField: z
      .string()
      .min(1)
      .default('system_prompt')
      .describe(
        "The reset observation's field that holds the agent's system prompt (finalstate's served environments give it there); absent or empty: `system`.",
      ),
    system: z
      .string()
      .optional()
      .describe('The system prompt when the observation gives none (default: a generic line asking to use the tools).'),
    passReward: z
      .number()
      .default(1)
      .describe("A terminal reward at least this is a pass (finalstate's reward 1), anything less a 0."),
    sendEpisodeId: z
      .boolean()
      .default(true)
      .describe(
        "Pass finalstate's episode id (and attempt) as the reset's episode_id, so the server's logs name the episode.",
      ),
    connectTimeoutSeconds: z.number().positive().default(10).describe('How long a connection may take to open.'),
    stepTimeoutSeconds: z
      .number()
      .positive()
      .default(120)
      .describe('How long a reset or step may go unanswered before the attempt fails as infrastructure.'),
  })
  .strict()
  .superRefine((part, ctx) => {
    if (part.submit && part.messages !== 'final')
      ctx.addIssue({ code: 'custom', path: ['submit'], message: 'submit applies to messages "final" only' });
  });
export type OpenEnvTaskPart = z.infer<typeof OpenEnvTaskPart>;
export type OpenEnvTaskPartInput = z.input<typeof OpenEnvTaskPart>;
