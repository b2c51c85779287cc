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

export const ModelCheckRequest = z
  .object({
    modelDir: z.string().min(1),
    probe: z
      .object({
        messages: z.array(TemplateMessage),
        tools: z
          .array(z.record(z.string(), z.unknown()))
          .describe('{"type": "function", "function": {name, description, parameters}} per tool.'),
        rendered: z
          .string()
          .describe("The interpreter's rendering of the same conversation, generation prompt included."),
      })
      .strict(),
  })
  .strict();
export type ModelCheckRequest = z.infer<typeof ModelCheckRequest>;

const Count = z.number().int().nonnegative();

export const TemplateComparison = z.discriminatedUnion('status', [
  z.object({ status: z.literal('absent') }).strict(),
  z.object({ status: z.literal('match'), tokens: Count }).strict(),
  z
    .object({
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

export const ModelCheckReport = z
  .object({
    modelDir: z.string(),
    problems: z.array(z.string()).describe('What keeps the directory from being a loadable causal LM (empty: none).'),
    modelType: z.string().optional(),
    chatTemplate: TemplateComparison.optional().describe('Absent when the directory could not be loaded.'),
  })
  .strict();
export type ModelCheckReport = z.infer<typeof ModelCheckReport>;
