import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * FakeChatServer: a FAKE standing in for a hosted frontier LLM behind an OpenAI-compatible /v1/chat/completions
 * endpoint (out of reach in tests). `respond` plays the model; every request body is recorded.
 */

export interface FakeChatReply {
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  finish_reason?: string;
}

export type ChatRequestBody = { model: string; messages: Array<Record<string, unknown>>; [key: string]: unknown };

export class FakeChatServer {
  readonly requests: ChatRequestBody[] = [];
  private readonly server: http.Server;
  private failures: number[] = [];
  url = '';

  constructor(private readonly respond: (body: ChatRequestBody) => FakeChatReply) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  failNext(...statuses: number[]): void {
    this.failures.push(...statuses);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url !== '/v1/chat/completions') return send(404, { error: { message: 'not found' } });
    const body = JSON.parse(raw) as ChatRequestBody;
    this.requests.push(body);
    const failure = this.failures.shift();
    if (failure !== undefined)
      return send(failure, { error: { message: `injected failure ${failure}`, type: 'fake' } });
    const reply = this.respond(body);
    const prompt = JSON.stringify(body.messages).length;
    send(200, {
      id: `chatcmpl-${this.requests.length}`,
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [
        {
          index: 0,
          finish_reason: reply.finish_reason ?? (reply.tool_calls ? 'tool_calls' : 'stop'),
          message: {
            role: 'assistant',
            content: reply.content ?? null,
            reasoning_content: reply.reasoning_content,
            tool_calls: reply.tool_calls,
          },
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: 7,
        total_tokens: prompt + 7,
        prompt_tokens_details: { cached_tokens: 3 },
      },
    });
  }
}
