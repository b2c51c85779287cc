import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * FakeVllmServer: a FAKE policy server for the tests that need what a real model cannot be made to do: write a
 * scripted text (a tool call, a spelled control token, a planted out-of-vocabulary character), take a chosen time
 * over a turn, or answer in the shape of vLLM before 0.10.2. Everything else is tested against real vLLM (the CPU
 * build, test/helpers/vllm.ts) and the project's own server: the publish path, the admin routes and their faults,
 * weight versions, context refusals, aborts (policy-admin, policy-client, publish-policy, vllm-faults and
 * policy-server-contract tests). It serves the completions subset both real servers share (/v1/completions with
 * token-id prompts, logprobs and returned token ids, /tokenize, /detokenize, /health) over a toy tokenizer and a
 * deterministic toy "model", and copies these behaviours of vLLM 0.32.0 (checked against it):
 * - with the client's flags (skip_special_tokens false) the text includes the end-of-turn token it stopped on;
 * - no `policy_version` in answers unless `policyVersion` asks for one (the project's server reports it);
 * - the context refusal's wording ("This model's maximum context length is N tokens. …") for a prompt that does not
 *   fit; a prompt that fits with less room than max_tokens is cut short (finish_reason "length"); max_tokens over the
 *   context length is refused whatever the prompt, as a plain bad request;
 * - `abortNext` ends the next completions early with finish_reason "abort", as vLLM answers requests in flight when
 *   /pause runs with mode=abort (tests that need a scripted turn around the abort use it; the real abort is in
 *   policy-client.test.ts).
 * And, only on request, the older answer that vLLM 0.32.0 cannot give: `legacyTokenIds`, token ids only as
 * "token_id:<id>" logprob tokens (vLLM before 0.10.2).
 *
 * Toy tokenizer: ChatML and tool tags are single special tokens, "\n\n" is one merged token (so tokenising two pieces
 * separately can give other ids than tokenising their concatenation, as with real BPE), every other character is
 * one token (id 100 + code point). Characters listed in `unknownChars` are out of vocabulary and decode to U+FFFD:
 * that is how a test plants a retokenisation mismatch.
 */

const SPECIAL = [
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
  '<think>',
  '</think>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
  '\n\n',
];
const UNK = 10;
const CHAR_BASE = 100;
export const IM_END_ID = SPECIAL.indexOf('<|im_end|>');

export interface ToyModelInput {
  prompt: string;
  seed: number | undefined;
  temperature: number;
}

export interface FakeVllmOptions {
  model?: string;
  /** The completion text (without end-of-turn token) for a prompt. */
  respond: (input: ToyModelInput) => string;
  maxModelLen?: number;
  unknownChars?: string[];
  /** When set, responses carry `policy_version` like the project's policy server does. */
  policyVersion?: string;
  /** Answer token ids the old way (logprobs.tokens as "token_id:N") instead of `token_ids`. */
  legacyTokenIds?: boolean;
  /** Completions of these turns (0-based) take this long, like a model generating slowly: `{ turn, ms }`. */
  slowTurn?: { turn: number; ms: number };
}

export interface RecordedRequest {
  path: string;
  body: Record<string, unknown>;
}

export class FakeVllmServer {
  readonly requests: RecordedRequest[] = [];
  private readonly server: http.Server;
  private aborts = 0;
  url = '';

  constructor(readonly options: FakeVllmOptions) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  get model(): string {
    return this.options.model ?? 'toy-qwen3';
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next `count` completions end with finish_reason "abort" after a few tokens, as when vLLM is paused mid-request. */
  abortNext(count = 1): void {
    this.aborts += count;
  }

  /**
   * `merge: false` is how the toy model samples: it may write "\n\n" as two tokens, a path the tokenizer itself never
   * produces (real models do this too), so retokenising sampled text can change its ids.
   */
  tokenize(text: string, { merge = true } = {}): number[] {
    const ids: number[] = [];
    let i = 0;
    while (i < text.length) {
      const special = SPECIAL.findIndex((s) => (merge || s !== '\n\n') && text.startsWith(s, i));
      if (special !== -1) {
        ids.push(special);
        i += SPECIAL[special]!.length;
        continue;
      }
      const cp = text.codePointAt(i)!;
      const char = String.fromCodePoint(cp);
      ids.push(this.options.unknownChars?.includes(char) ? UNK : CHAR_BASE + cp);
      i += char.length;
    }
    return ids;
  }

  detokenize(ids: readonly number[]): string {
    return ids
      .map((id) =>
        id === UNK ? '\uFFFD' : id < CHAR_BASE ? (SPECIAL[id] ?? '\uFFFD') : String.fromCodePoint(id - CHAR_BASE),
      )
      .join('');
  }

  /** Deterministic pseudo logprob of token `id` at `position`, varying with the seed. */
  static logprob(seed: number, position: number, id: number): number {
    const h = Math.imul((seed + 1) * 2654435761 + position * 40503 + id * 97, 2246822519) >>> 0;
    return -((h % 5000) / 1000) - 0.001;
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = (raw === '' ? {} : JSON.parse(raw)) as Record<string, unknown>;
    const path = req.url ?? '';
    this.requests.push({ path, body });
    if (path === '/health') return this.send(res, 200, {});
    if (body.model !== this.model)
      return this.send(res, 404, {
        error: {
          message: `The model \`${String(body.model)}\` does not exist.`,
          type: 'NotFoundError',
          param: 'model',
          code: 404,
        },
      });
    const maxModelLen = this.options.maxModelLen ?? 8192;
    if (path === '/tokenize') {
      const tokens = this.tokenize(String(body.prompt));
      return this.send(res, 200, { count: tokens.length, max_model_len: maxModelLen, tokens, token_strs: null });
    }
    if (path === '/detokenize') return this.send(res, 200, { prompt: this.detokenize(body.tokens as number[]) });
    if (path === '/v1/completions') {
      const turn = this.requests.filter((r) => r.path === '/v1/completions').length - 1;
      const slow = this.options.slowTurn;
      if (slow && slow.turn === turn) await new Promise((resolve) => setTimeout(resolve, slow.ms));
      if (res.destroyed) return; // the client gave up
      return this.complete(body, res, maxModelLen);
    }
    return this.send(res, 404, { detail: 'Not Found' });
  }

  private complete(body: Record<string, unknown>, res: http.ServerResponse, maxModelLen: number): void {
    const promptIds = Array.isArray(body.prompt) ? (body.prompt as number[]) : this.tokenize(String(body.prompt));
    const maxTokens = Number(body.max_tokens ?? 16);
    const refuse = (message: string) =>
      this.send(res, 400, { error: { message, type: 'BadRequestError', param: null, code: 400 } });
    if (maxTokens > maxModelLen) {
      return refuse(
        `max_tokens=${maxTokens} cannot be greater than max_model_len=${maxModelLen}. Please request fewer output tokens. (parameter=max_tokens, value=${maxTokens})`,
      );
    }
    if (promptIds.length >= maxModelLen) {
      return refuse(
        `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptIds.length} input tokens. Please reduce the length of the input messages.`,
      );
    }
    const seed = typeof body.seed === 'number' ? body.seed : undefined;
    const text = this.options.respond({
      prompt: this.detokenize(promptIds),
      seed,
      temperature: Number(body.temperature ?? 1),
    });
    let ids = [...this.tokenize(text, { merge: false }), IM_END_ID];
    let finishReason = 'stop';
    const room = Math.min(maxTokens, maxModelLen - promptIds.length);
    if (ids.length > room) {
      ids = ids.slice(0, room);
      finishReason = 'length';
    }
    if (this.aborts > 0) {
      this.aborts -= 1;
      ids = ids.slice(0, Math.min(3, ids.length - 1));
      finishReason = 'abort';
    }
    const logprobs = ids.map((id, i) => FakeVllmServer.logprob(seed ?? 0, promptIds.length + i, id));
    const choice: Record<string, unknown> = {
      index: 0,
      text: this.detokenize(ids),
      finish_reason: finishReason,
      stop_reason: null,
      logprobs: {
        tokens: this.options.legacyTokenIds
          ? ids.map((id) => `token_id:${id}`)
          : ids.map((id) => this.detokenize([id])),
        token_logprobs: logprobs,
        top_logprobs: null,
        text_offset: null,
      },
    };
    if (!this.options.legacyTokenIds && body.return_token_ids) choice.token_ids = ids;
    const answer: Record<string, unknown> = {
      id: `cmpl-${this.requests.length}`,
      object: 'text_completion',
      model: this.model,
      choices: [choice],
      usage: {
        prompt_tokens: promptIds.length,
        completion_tokens: ids.length,
        total_tokens: promptIds.length + ids.length,
      },
    };
    if (this.options.policyVersion) answer.policy_version = this.options.policyVersion;
    this.send(res, 200, answer);
  }
}
