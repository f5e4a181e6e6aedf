import { createHash, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring, newKey, parseUsersFile } from '../../../electron/local-service/team/keyring';
import { createRateLimiter } from '../../../electron/local-service/team/rate-limit';

describe('team keys', () => {
  it('a new key verifies against its users-file line, which holds a scrypt hash and not the key', async () => {
    const { key, line } = await newKey('alice');
    const [user, keyId, hash] = line.split(' ') as [string, string, string];
    expect(user).toBe('alice');
    expect(key.startsWith(`fl_${keyId}_`)).toBe(true);
    const secret = key.slice(`fl_${keyId}_`.length);
    expect(line).not.toContain(secret);
    // The stored hash is scrypt of the whole key with the stored salt and parameters, recomputed here.
    const [, n, r, p, salt, digest] = hash.split('$');
    expect(n).toBe('16384');
    const again = scryptSync(key, Buffer.from(salt!, 'base64url'), 32, { N: Number(n), r: Number(r), p: Number(p) });
    expect(again.toString('base64url')).toBe(digest);

    const ring = createKeyring(parseUsersFile(`# team keys\n\n${line}\n`));
    expect(await ring.verify(key)).toEqual({ user: 'alice', keyId });
    expect(await ring.verify(key)).toEqual({ user: 'alice', keyId });
    expect(await ring.verify(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toBeNull();
    expect(await ring.verify(`fl_000000000000_${secret}`)).toBeNull();
    expect(await ring.verify('not-a-key')).toBeNull();
  });

  it('two users, two keys: each key is its own user', async () => {
    const a = await newKey('alice');
    const b = await newKey('bob');
    const ring = createKeyring(parseUsersFile([a.line, b.line].join('\n')));
    expect((await ring.verify(a.key))?.user).toBe('alice');
    expect((await ring.verify(b.key))?.user).toBe('bob');
  });

  it('a key checked by one process is learnt by another without scrypt; one check for requests that arrive together', async () => {
    const a = await newKey('alice');
    const b = await newKey('bob');
    const entries = parseUsersFile([a.line, b.line].join('\n'));
    const checkedHere: string[] = [];
    const checkedThere: string[] = [];
    const there = createKeyring(entries, { onPassed: (p) => checkedThere.push(p.user) });
    const here = createKeyring(entries, { onPassed: (p) => (checkedHere.push(p.user), there.learn(p)) });
    const together = await Promise.all([here.verify(a.key), here.verify(a.key), here.verify(a.key)]);
    expect(together.map((p) => p?.user)).toEqual(['alice', 'alice', 'alice']);
    expect(checkedHere).toEqual(['alice']);
    // The other process knows alice's key without checking it, and still checks bob's itself.
    expect(await there.verify(a.key)).toEqual({ user: 'alice', keyId: a.line.split(' ')[1] });
    expect(await there.verify(b.key)).toEqual({ user: 'bob', keyId: b.line.split(' ')[1] });
    expect(checkedThere).toEqual(['bob']);
    // What is learnt must match an entry: a key id with another user's name is not taken.
    const third = createKeyring(entries, { onPassed: (p) => checkedThere.push(`third:${p.user}`) });
    const digest = createHash('sha256').update(b.key).digest('hex');
    third.learn({ digest, user: 'alice', keyId: b.line.split(' ')[1]! });
    expect(await third.verify(b.key)).toEqual({ user: 'bob', keyId: b.line.split(' ')[1] });
    expect(checkedThere).toEqual(['bob', 'third:bob']);
  });

  it('refuses a users file line that is not a hash entry, naming the line', async () => {
    expect(() => parseUsersFile('# ok\nalice plain-key-here\n')).toThrow(/line 2/);
    await expect(newKey('has space')).rejects.toThrow(/user names/);
  });
});

describe('rate limits per key', () => {
  it('allow a minute of requests at once, then one per interval, and say how long to wait', () => {
    let t = 0;
    const limit = createRateLimiter(6, () => t); // one token every 10 s
    for (let i = 0; i < 6; i++) expect(limit.take('k1')).toBe(0);
    expect(limit.take('k1')).toBe(10);
    expect(limit.take('k2')).toBe(0);
    t = 4_000;
    expect(limit.take('k1')).toBe(6);
    t = 10_000;
    expect(limit.take('k1')).toBe(0);
    expect(limit.take('k1')).toBe(10);
  });
});
