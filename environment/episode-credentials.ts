import path from 'node:path';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { readOrMakeSecret } from './secret-file.js';

/**
 * What the runtime holds for one episode: the login password of its role and the token that proves to the
 * internal-table functions (`_finalstate_record_call`, ...) that a statement comes from the runtime and not from tool
 * SQL running as the same role. Both are derived from the stack's random key and the episode id, so a retried attempt
 * in another process derives the same ones; neither can be derived without the key.
 */
export interface EpisodeCredentials {
  password: string;
  recorderToken: string;
}

const KEY_FILE = path.join('secrets', 'episode-key');

/** The stack's 256-bit key, made on first use under the data directory (see readOrMakeSecret). */
export function stackKey(dataPath: string): Buffer {
  const file = path.join(dataPath, KEY_FILE);
  return checked(
    Buffer.from(
      readOrMakeSecret(file, () => randomBytes(32).toString('hex')),
      'hex',
    ),
    file,
  );
}

function checked(key: Buffer, file: string): Buffer {
  if (key.length !== 32)
    throw new Error(
      `${file} does not hold a 64-hex-digit key; delete it to make a new one (running episodes lose their reattach)`,
    );
  return key;
}

export function episodeCredentials(key: Buffer, episodeId: string): EpisodeCredentials {
  const derive = (purpose: string) => createHmac('sha256', key).update(`${purpose}\0${episodeId}`).digest('hex');
  return { password: derive('password'), recorderToken: derive('recorder') };
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for `password`, so that no statement the runtime sends (and no log line
 * that quotes one) ever holds a password: the server stores a pre-hashed verifier as it is. One PBKDF2 iteration,
 * because the passwords are 256-bit random values: stretching protects guessable passwords only, and would cost
 * every episode connection its time.
 */
export function scramVerifier(password: string, iterations = 1): string {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const storedKey = createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const serverKey = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
