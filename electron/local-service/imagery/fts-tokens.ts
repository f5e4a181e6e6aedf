import Database from 'better-sqlite3';

/**
 * The embedded catalog's word splitting (store.ts: FTS5, unicode61 with diacritics removed),
 * for stores that keep the words themselves. SQLite's own tokenizer in an in-memory database,
 * not a copy of its rules: case and diacritic folding, which characters split words (Unicode
 * 6.1 tables) and ligatures all come out exactly as the embedded store indexes them.
 */
export interface FtsTokenizer {
  /** The text's tokens in order, repeats kept (a phrase is tokens in a row). */
  tokens(text: string): string[];
  close(): void;
}

export function createFtsTokenizer(): FtsTokenizer {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE doc USING fts5(text, tokenize='unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE doc_terms USING fts5vocab(doc, instance);`);
  const put = db.prepare('INSERT INTO doc (rowid, text) VALUES (1, ?)');
  const read = db.prepare('SELECT term FROM doc_terms ORDER BY "offset"').pluck();
  const clear = db.prepare('DELETE FROM doc');
  const tokenize = db.transaction((text: string) => {
    put.run(text);
    const out = read.all() as string[];
    clear.run();
    return out;
  });
  return {
    tokens: (text) => tokenize(text),
    close: () => db.close(),
  };
}
