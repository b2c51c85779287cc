import { InfrastructureError } from '../../core/errors.js';

/** How to reach a ThinkingBox session proxy: its base URL and, when it requires one, its bearer key. */
export interface ProxyAddress {
  url: string;
  apiKey?: string;
}

export interface CreateSessionRequest {
  sessionId: string;
  serverConfig: Record<string, Record<string, unknown>>;
  availableTools: string[];
  /** A tool call's limit at the proxy, in seconds: past it the proxy answers 504. */
  timeoutSeconds: number;
}

/** The proxy's answer envelope (thinkingbox.tools.session_proxy.SessionProxyResponse). */
interface ProxyResponse {
  success: boolean;
  content: { type: 'string' | 'object'; value: unknown };
}

const REQUEST_TIMEOUT_MS = 120_000;

/**
 * The session proxy's HTTP API, as ThinkingBox's own client uses it: one session per episode, created with the task's
 * server configuration, its effects read at the end, destroyed always. Anything that is not an answer of the proxy
 * about the request itself (refused connection, 5xx, a timeout, an unreadable body) is an InfrastructureError;
 * ThinkingBox answers a failed session_create with 400 and the servers' message, which is one too (the issue names a
 * session that cannot be created as infrastructure: the servers decide, not the agent).
 */
export class ThinkingBoxProxyClient {
  constructor(readonly address: ProxyAddress) {}

  get url(): string {
    return this.address.url.replace(/\/+$/, '');
  }

  /** True when /health answers OK. */
  async healthy(timeoutMs = 2000): Promise<boolean> {
    try {
      const res = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
      return res.ok;
    } catch {
      return false;
    }
  }

  /** Create the session: its servers started and initialised with the configuration; returns each server's init result. */
  async createSession(request: CreateSessionRequest): Promise<Record<string, unknown>> {
    const body = {
      session_id: request.sessionId,
      server_config: request.serverConfig,
      available_tools: request.availableTools,
      timeout: request.timeoutSeconds,
    };
    return (await this.post('session_create', body, 'object')) as Record<string, unknown>;
  }

  /** Whether the proxy still has the session (a restarted proxy has none). */
  async hasSession(sessionId: string): Promise<boolean> {
    const res = await this.request('session_info', { session_id: sessionId });
    if (res.body.success) return true;
    if (res.status === 400 && String(res.body.content.value).includes('does not exist')) return false;
    throw this.failure('session_info', res.status, res.body);
  }

  /** Each server's effects: for the business servers the result and golden state hashes and their diff. */
  async getEffects(sessionId: string): Promise<Record<string, unknown>> {
    return (await this.post('get_effects', { session_id: sessionId }, 'object')) as Record<string, unknown>;
  }

  /** Destroy the session; one the proxy does not have is already gone. */
  async destroySession(sessionId: string): Promise<void> {
    const res = await this.request('session_destroy', { session_id: sessionId });
    if (res.body.success) return;
    if (res.status === 400 && String(res.body.content.value).includes('does not exist')) return;
    throw this.failure('session_destroy', res.status, res.body);
  }

  /** Destroy the sessions idle for `minutes`; returns their ids. */
  async garbageCollect(minutes: number): Promise<string[]> {
    const value = (await this.post('garbage_collect', { inactivity_minutes: minutes }, 'object')) as {
      session_ids?: string[];
    };
    return value.session_ids ?? [];
  }

  private async post(route: string, body: unknown, want: 'string' | 'object'): Promise<unknown> {
    const res = await this.request(route, body);
    if (!res.body.success || res.body.content.type !== want) throw this.failure(route, res.status, res.body);
    return res.body.content.value;
  }

  private failure(route: string, status: number, body: ProxyResponse): InfrastructureError {
    return new InfrastructureError(
      `thinkingbox proxy ${this.url}/${route} answered HTTP ${status}: ${String(body.content?.value ?? '(no message)')}`,
      'thinkingbox',
    );
  }

  private async request(route: string, body: unknown): Promise<{ status: number; body: ProxyResponse }> {
    let res: Response;
    try {
      res = await fetch(`${this.url}/${route}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.address.apiKey ? { authorization: `Bearer ${this.address.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw new InfrastructureError(
        `thinkingbox proxy ${this.url}/${route} cannot be reached: ${describeFetchError(err)}`,
        'thinkingbox',
        { cause: err },
      );
    }
    const text = await res.text().catch(() => '');
    let parsed: ProxyResponse | undefined;
    try {
      parsed = JSON.parse(text) as ProxyResponse;
    } catch {
      parsed = undefined;
    }
    if (res.status >= 500 || !parsed || typeof parsed.success !== 'boolean')
      throw new InfrastructureError(
        `thinkingbox proxy ${this.url}/${route} answered HTTP ${res.status}: ${text.slice(0, 300) || '(empty)'}`,
        'thinkingbox',
      );
    return { status: res.status, body: parsed };
  }
}

/** A fetch failure's cause in one line (ECONNREFUSED, a timeout, …). */
export function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
