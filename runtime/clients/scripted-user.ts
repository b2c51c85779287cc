import type { Task } from '../../schemas/task.js';
import type { VisibleMessage } from '../episode/visible-dialogue.js';
import { NO_USAGE, type UserReply, type UserSimulator } from './user-simulator.js';

/*
 * The deterministic user simulator (the embedded default), rules documented in docs/episode.md:
 *  - only a question (a "?" or a request such as "please provide") is answered with facts or decisions;
 *  - a fact is asked for when the question mentions at least half the words of its key (a word, a synonym or a
 *    shared 4-letter stem) and does not already state the value; facts are ranked by how many key words are
 *    mentioned, and a word answers one fact only;
 *  - a decision is asked about when the message is a question mentioning a specific word of its key;
 *  - an unrecognised question is declined (an offer with "No, thank you", a question with "I don't know");
 *  - a message that asks nothing, or asks "anything else?", reports the work done and ends the conversation.
 */

const SYNONYMS: Record<string, string[]> = {
  id: ['identifier', 'number', 'code', 'reference', 'ref', '#'],
  number: ['no', '#'],
  email: ['e-mail', 'mail'],
  phone: ['telephone', 'mobile', 'cell'],
  zip: ['postcode', 'postal'],
  date: ['day', 'when'],
  address: ['street', 'location'],
  name: ['called'],
  amount: ['much', 'sum', 'total'],
  reason: ['why'],
};

/** Words that say how a decision is asked, not what it is about. */
const GENERIC_DECISION_WORDS = new Set([
  'confirm',
  'accept',
  'want',
  'wants',
  'agree',
  'allow',
  'approve',
  'proceed',
  'ok',
  'user',
  'customer',
  'is',
  'to',
]);

const ASKS =
  /\?|\b(please confirm|can you confirm|let me know|could you (tell|provide|give|share|send)|please (provide|share|tell|give|send))\b/i;
const CLOSING = /\b(anything else|something else|further (help|assistance|questions?)|else (i|we) can (help|do))\b/i;
const YES_NO =
  /^\s*(shall|should|would|do|does|did|can|could|may|is|are|will|want|ok|okay)\b|\b(would you like|do you want|shall i|should i|is that (ok|okay|alright|correct|right))\b/i;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/e-mail/g, 'email')
    .split(/[^a-z0-9#]+/)
    .filter((w) => w !== '');
}

function keyWords(key: string): string[] {
  return words(key.replace(/([a-z0-9])([A-Z])/g, '$1 $2'));
}

/** Whether a key word is mentioned by a message word: equal, a synonym, or sharing a 4-letter stem (cancel ~ cancellation). */
function mentions(keyWord: string, word: string): boolean {
  if (word === keyWord || (SYNONYMS[keyWord] ?? []).includes(word)) return true;
  return Math.min(word.length, keyWord.length) >= 4 && (word.startsWith(keyWord) || keyWord.startsWith(word));
}

function mentioned(keyWord: string, message: string[]): string[] {
  return message.filter((word) => mentions(keyWord, word));
}

interface Candidate {
  key: string;
  score: number;
  matchedWords: Set<string>;
}

function askedFacts(facts: Record<string, string>, message: string[]): string[] {
  const candidates: Candidate[] = [];
  for (const key of Object.keys(facts)) {
    const tokens = keyWords(key);
    const matched = tokens.map((t) => mentioned(t, message));
    const score = matched.filter((m) => m.length > 0).length;
    if (score === 0 || score * 2 < tokens.length) continue;
    candidates.push({ key, score, matchedWords: new Set(matched.flat()) });
  }
  candidates.sort((a, b) => b.score - a.score);
  const consumed = new Set<string>();
  const asked: string[] = [];
  for (const candidate of candidates) {
    if (![...candidate.matchedWords].some((w) => !consumed.has(w))) continue;
    asked.push(candidate.key);
    candidate.matchedWords.forEach((w) => consumed.add(w));
  }
  return Object.keys(facts).filter((key) => asked.includes(key));
}

function askedDecisions(decisions: Record<string, boolean>, message: string[]): string[] {
  return Object.keys(decisions).filter((key) => {
    const tokens = keyWords(key);
    const specific = tokens.filter((t) => !GENERIC_DECISION_WORDS.has(t));
    return (specific.length > 0 ? specific : tokens).some((t) => mentioned(t, message).length > 0);
  });
}

export class ScriptedUserSimulator implements UserSimulator {
  constructor(private readonly task: Pick<Task, 'query' | 'userFacts' | 'userDecisions'>) {}

  opening(): UserReply {
    return { text: this.task.query, done: false, usage: NO_USAGE, model: null };
  }

  async reply(dialogue: readonly VisibleMessage[]): Promise<UserReply> {
    const said = (text: string, done = false): UserReply => ({ text, done, usage: NO_USAGE, model: null });
    const last = [...dialogue].reverse().find((m) => m.from === 'agent');
    if (!last) return said("I'm waiting for your answer.");
    if (CLOSING.test(last.text)) return said("Thank you, that's all.", true);
    const message = words(last.text);
    const isQuestion = ASKS.test(last.text);
    const known = last.text.toLowerCase();
    // A fact the agent already states is not asked for ("Shall I cancel order ORD-7?").
    const facts = isQuestion
      ? askedFacts(this.task.userFacts, message).filter(
          (key) => !known.includes(this.task.userFacts[key]!.toLowerCase()),
        )
      : [];
    const decisions = isQuestion ? askedDecisions(this.task.userDecisions, message) : [];
    if (facts.length > 0 || decisions.length > 0) {
      const sentences = facts.map((key) => `My ${keyWords(key).join(' ')} is ${this.task.userFacts[key]}.`);
      if (decisions.length === 1)
        sentences.push(this.task.userDecisions[decisions[0]!] ? 'Yes, please go ahead.' : "No, I don't want that.");
      else
        for (const key of decisions)
          sentences.push(`${this.task.userDecisions[key] ? 'Yes' : 'No'} to ${keyWords(key).join(' ')}.`);
      return said(sentences.join(' '));
    }
    if (!isQuestion) return said("Thank you, that's all.", true);
    if (YES_NO.test(last.text)) return said('No, thank you.');
    return said("Sorry, I don't know that.");
  }
}
