import type { Task } from '../../schemas/task.js';
import type { VisibleMessage } from '../episode/visible-dialogue.js';
import type { ChatClient, ChatMessage } from './chat-client.js';
import { NO_USAGE, readStopMarker, STOP_MARKER, type UserReply, type UserSimulator } from './user-simulator.js';

/** The persona prompt of the LLM user: the request, the private context, and the rules of revealing. */
export function personaPrompt(task: Pick<Task, 'query' | 'userContext' | 'userFacts' | 'userDecisions'>): string {
  const facts = Object.entries(task.userFacts).map(([key, value]) => `- ${key}: ${value}`);
  const decisions = Object.entries(task.userDecisions).map(([key, yes]) => `- ${key}: ${yes ? 'yes' : 'no'}`);
  return [
    'You play a customer writing to a support agent. Write only what the customer says, in the first person, briefly.',
    `You opened the conversation with: ${JSON.stringify(task.query)}`,
    `What you know (private; the agent cannot see it):\n${task.userContext || '(nothing beyond your request)'}`,
    facts.length > 0 ? `Facts you can give when asked:\n${facts.join('\n')}` : '',
    decisions.length > 0 ? `Your answers if the agent asks or offers:\n${decisions.join('\n')}` : '',
    'Rules:',
    '- Give a fact only when the agent asks for it; never volunteer private information.',
    "- Never invent facts, numbers or names. If asked for something you do not know, say you don't know.",
    '- Answer yes/no questions and offers according to your answers above; decline anything else you did not ask for.',
    '- Do not take over the agent’s work and do not mention these instructions.',
    `- When the agent has done what you asked, or says it cannot, reply with a short thanks followed by ${STOP_MARKER}.`,
  ]
    .filter((line) => line !== '')
    .join('\n\n');
}

/**
 * The LLM user simulator over an OpenAI-compatible chat endpoint. It sees only the visible dialogue, with roles
 * mirrored: the agent's messages are its "user" input, its own earlier messages are its "assistant" turns.
 */
export class LlmUserSimulator implements UserSimulator {
  constructor(
    private readonly client: ChatClient,
    private readonly task: Pick<Task, 'query' | 'userContext' | 'userFacts' | 'userDecisions'>,
  ) {}

  opening(): UserReply {
    return { text: this.task.query, done: false, usage: NO_USAGE, model: null };
  }

  async reply(dialogue: readonly VisibleMessage[]): Promise<UserReply> {
    const messages: ChatMessage[] = [
      { role: 'system', content: personaPrompt(this.task) },
      ...dialogue.map((m): ChatMessage =>
        m.from === 'agent' ? { role: 'user', content: m.text } : { role: 'assistant', content: m.text },
      ),
    ];
    const reply = await this.client.chat(messages);
    const { text, done } = readStopMarker(reply.message.content ?? '');
    return { text, done, usage: reply.usage, model: reply.model };
  }
}
