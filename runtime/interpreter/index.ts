/** The one interpreter shared by training and evaluation: chat formats, output parsing, argument typing. */
import { qwen3CoderRenderer } from './qwen3-coder.js';
import { qwen3Renderer } from './qwen3.js';
import { registerRenderer } from './registry.js';

// Registration order is the order in which the model check tries the formats (the first that matches is chosen).
registerRenderer('qwen3', qwen3Renderer);
registerRenderer('qwen3-coder', qwen3CoderRenderer);

export { typeArguments } from './coercion.js';
export { failureFeedback } from './feedback.js';
export { pythonJson } from './python-json.js';
export { qwen3CoderRenderer } from './qwen3-coder.js';
export { qwen3Renderer } from './qwen3.js';
export { getRenderer, registerRenderer, rendererFamilies } from './registry.js';
export { renderPrompt, type ChatRenderer, type ParsedOutput } from './renderer.js';
export { toolResultTurn, type ToolResultLike } from './tool-result.js';
