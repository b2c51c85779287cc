import { z } from 'zod';

/*
 * The base-model check (python -m finalstate.model_check): is a directory a Hugging Face causal LM the stack can load,
 * and does its chat template, where it carries one, render a conversation with tools exactly as the interpreter does?
 */

/** A chat message as Hugging Face chat templates read it (`apply_chat_template(messages, tools=…)`). */
export const TemplateMessage = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string(),
    reasoning_content: z.string().optional(),
    tool_calls: z
      .array(
        z
          .object({
            type: z.literal('function'),
            function: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }).strict(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

/** One conversation as a chat template takes it, and as the interpreter renders it. */
export const TemplateProbe = z
  .object({
    name: z.string().min(1).describe('What the conversation exercises, e.g. "probe" or "domain retail (full)".'),
    messages: z.array(TemplateMessage),
    tools: z
      .array(z.record(z.string(), z.unknown()))
      .describe('{"type": "function", "function": {name, description, parameters}} per tool.'),
    plainMessages: z
      .array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }).strict())
      .describe(
        "The same conversation as plain role/content messages whose content carries the format's tool list, calls and results as the interpreter writes them: what a template without a tools section is given.",
      ),
    rendered: z.string().describe("The interpreter's rendering of the same conversation, generation prompt included."),
  })
  .strict();
export type TemplateProbe = z.infer<typeof TemplateProbe>;

export const ModelCheckRequest = z
  .object({
    modelDir: z.string().min(1),
    candidates: z
      .array(z.object({ family: z.string().min(1), probes: z.array(TemplateProbe).min(1) }).strict())
      .min(1)
      .describe('The chat formats (interpreter renderers) to try, in order of preference, each with its probes.'),
  })
  .strict();
export type ModelCheckRequest = z.infer<typeof ModelCheckRequest>;

const Count = z.number().int().nonnegative();

export const TemplateComparison = z.discriminatedUnion('status', [
  z.object({ name: z.string(), status: z.literal('match'), tokens: Count }).strict(),
  z
    .object({
      name: z.string(),
      status: z.literal('mismatch'),
      position: Count.describe('First token index where the two id sequences differ.'),
      ourTokens: Count,
      templateTokens: Count,
      contextStart: Count.describe('Index of the first token shown in ours/template.'),
      ours: z.array(z.string()).describe('Our tokens around the position, as text.'),
      template: z.array(z.string()).describe("The template's tokens around the position, as text."),
      textPosition: Count.describe('First character (code point) where the two texts differ.'),
      ourText: z.string().describe('Our text around textPosition.'),
      templateText: z.string().describe("The template's text around textPosition."),
    })
    .strict(),
]);
export type TemplateComparison = z.infer<typeof TemplateComparison>;

export const TemplateCheck = z.discriminatedUnion('status', [
  z.object({ status: z.literal('absent') }).strict(),
  z
    .object({
      status: z.literal('checked'),
      toolsSection: z
        .enum(['template', 'interpreter'])
        .describe(
          "template: the template writes tools, calls and results itself; interpreter: it has no tools section, so they are the interpreter's and the template is checked on everything around them.",
        ),
      formats: z.array(
        z
          .object({
            family: z.string(),
            probes: z.array(TemplateComparison).describe('In request order, up to and including the first mismatch.'),
          })
          .strict(),
      ),
    })
    .strict(),
]);
export type TemplateCheck = z.infer<typeof TemplateCheck>;

export const ModelCheckReport = z
  .object({
    modelDir: z.string(),
    problems: z.array(z.string()).describe('What keeps the directory from being a loadable causal LM (empty: none).'),
    modelType: z.string().optional(),
    addedTokens: z
      .array(z.string())
      .optional()
      .describe("Spellings of the tokenizer's added tokens (special or not), in id order."),
    chatTemplate: TemplateCheck.optional().describe('Absent when the directory could not be loaded.'),
  })
  .strict();
export type ModelCheckReport = z.infer<typeof ModelCheckReport>;
