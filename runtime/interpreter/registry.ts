import { UserError } from '../../core/errors.js';
import type { ChatRenderer } from './renderer.js';

const renderers = new Map<string, ChatRenderer>();

/** Make a chat format available under a model family name (e.g. "qwen3"); the loop looks renderers up by family. */
export function registerRenderer(family: string, renderer: ChatRenderer): void {
  if (renderers.has(family) && renderers.get(family) !== renderer) {
    throw new Error(`interpreter: a renderer for model family "${family}" is already registered`);
  }
  renderers.set(family, renderer);
}

export function getRenderer(family: string): ChatRenderer {
  const renderer = renderers.get(family);
  if (!renderer) {
    throw new UserError(
      `interpreter: no renderer for model family "${family}" (registered: ${[...renderers.keys()].join(', ') || 'none'})`,
    );
  }
  return renderer;
}

export function rendererFamilies(): string[] {
  return [...renderers.keys()];
}
