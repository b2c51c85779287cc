/**
 * A PostgreSQL lexer just deep enough to tell statements apart: it skips string literals ('…', E'…' with backslash
 * escapes, $tag$…$tag$), quoted identifiers, line comments and nested block comments, and splits on the semicolons
 * that remain. Task assertions are checked with it before anything reaches a database.
 */

/** One top-level statement: its text and its bare words (keywords and unquoted identifiers), upper-cased. */
export interface SqlStatement {
  text: string;
  words: string[];
}

export function splitSqlStatements(sql: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let start = 0;
  let words: string[] = [];
  let tokens = 0;
  let i = 0;
  const end = () => {
    if (tokens) statements.push({ text: sql.slice(start, i).trim(), words });
    words = [];
    tokens = 0;
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < sql.length && depth > 0) {
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'") {
      tokens++;
      const escapes = /[eE]$/.test(sql.slice(Math.max(0, i - 1), i)) && !/[A-Za-z0-9_$]/.test(sql[i - 2] ?? '');
      i++;
      while (i < sql.length) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
    } else if (c === '"') {
      tokens++;
      i++;
      while (i < sql.length && !(sql[i] === '"' && sql[i + 1] !== '"')) i += sql[i] === '"' ? 2 : 1;
      i++;
    } else if (
      c === '$' &&
      /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.test(sql.slice(i)) &&
      !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')
    ) {
      tokens++;
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))![0];
      const close = sql.indexOf(tag, i + tag.length);
      i = close < 0 ? sql.length : close + tag.length;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i, i + 256))![0];
      // E'…' is a string prefix, not a word of its own
      if (!(/^[eE]$/.test(word) && sql[i + 1] === "'")) words.push(word.toUpperCase());
      tokens++;
      i += word.length;
    } else if (c === ';') {
      end();
      i++;
      start = i;
    } else {
      if (!/\s/.test(c)) tokens++;
      i++;
    }
  }
  end();
  return statements;
}

/** Statements an assertion may start with: queries only. */
const QUERY_STARTS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);
/** Words that write or lock, anywhere in the statement (a data-modifying CTE, SELECT … FOR UPDATE). */
const WRITING_WORDS = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'TRUNCATE',
  'COPY',
  'CALL',
  'DO',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'INTO',
]);

/**
 * Why `sql` is not one read-only query, or undefined when it is. A read-only query starts with SELECT, WITH,
 * VALUES or TABLE and names none of the words that write, lock or end a transaction (quote an identifier that
 * happens to be one, e.g. "delete").
 */
export function readOnlyQueryProblem(sql: string): string | undefined {
  const statements = splitSqlStatements(sql);
  if (statements.length === 0) return 'holds no SQL statement';
  if (statements.length > 1) {
    return `must be one read-only SQL statement, found ${statements.length}: the second starts "${statements[1]!.text.slice(0, 40)}"`;
  }
  const [{ words }] = statements as [SqlStatement];
  if (!QUERY_STARTS.has(words[0] ?? ''))
    return `must be a query (SELECT, WITH, VALUES or TABLE), not ${words[0] ?? 'nothing'}`;
  const writing = words.find((w) => WRITING_WORDS.has(w));
  if (writing)
    return `must be read-only, but names ${writing} (quote an identifier of that name: "${writing.toLowerCase()}")`;
  return undefined;
}
