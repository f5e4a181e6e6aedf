import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RpcError } from '../../shared/rpc/errors';
import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import { LOCAL_PROFILE_ID, type Profile, type ProfileList, type ProfileSaveInput } from '../../shared/rpc/methods/profiles';
import type { Logger } from '../ground/logger';
import { writeFileAtomic } from '../ground/atomic-file';

export const PROFILES_FILE = 'profiles.json';
export const LOCAL_LABEL = 'Local (bundled)';

// Only non-secret settings live in this file; keys are in the OS keychain.
const StoredRemote = z.object({
  id: z.string().min(1),
  label: z.string(),
  baseUrl: z.string(),
  searchBaseUrl: z.string(),
});
const StoredFile = z.object({
  version: z.literal(1),
  activeProfileId: z.string(),
  remotes: z.array(StoredRemote),
});
type StoredFile = z.infer<typeof StoredFile>;
type StoredRemote = z.infer<typeof StoredRemote>;

export interface ProfileServiceDeps {
  dataDir: string;
  logger: Logger;
  /** Where the bundled service listens, once it does; null while it is not running. */
  localEndpoint?: () => { baseUrl: string; searchBaseUrl: string } | null;
  /** Told whenever the active connection changes (select, edit or delete of the active profile). */
  onActiveChanged?: (c: ConnectionInfo) => void;
}

/** Connection profiles: the fixed "Local" one plus any number of remote ones, kept in profiles.json. */
export class ProfileService {
  private readonly file: string;
  private state: StoredFile;

  constructor(private readonly deps: ProfileServiceDeps) {
    this.file = join(deps.dataDir, PROFILES_FILE);
    this.state = this.load();
  }

  private load(): StoredFile {
    const empty: StoredFile = { version: 1, activeProfileId: LOCAL_PROFILE_ID, remotes: [] };
    if (!existsSync(this.file)) return empty;
    try {
      const parsed = StoredFile.parse(JSON.parse(readFileSync(this.file, 'utf8')));
      if (parsed.activeProfileId !== LOCAL_PROFILE_ID && !parsed.remotes.some((r) => r.id === parsed.activeProfileId))
        parsed.activeProfileId = LOCAL_PROFILE_ID;
      return parsed;
    } catch (e) {
      // Keep the unreadable file for the user instead of overwriting it on the next save.
      const aside = `${this.file}.unreadable-${Date.now()}`;
      renameSync(this.file, aside);
      this.deps.logger.warn('Profiles file was unreadable; started with defaults', { movedTo: aside, error: String(e) });
      return empty;
    }
  }

  private persist(next: StoredFile): void {
    writeFileAtomic(this.file, JSON.stringify(next, null, 2) + '\n');
    this.state = next;
  }

  private local(): Omit<Profile, 'active'> {
    const ep = this.deps.localEndpoint?.() ?? null;
    return {
      id: LOCAL_PROFILE_ID,
      label: LOCAL_LABEL,
      kind: 'local',
      baseUrl: ep?.baseUrl ?? '',
      searchBaseUrl: ep?.searchBaseUrl ?? '',
    };
  }

  private withActive(p: Omit<Profile, 'active'>): Profile {
    return { ...p, active: p.id === this.state.activeProfileId };
  }

  list(): ProfileList {
    const remotes = this.state.remotes.map((r): Omit<Profile, 'active'> => ({ ...r, kind: 'remote' }));
    return {
      activeProfileId: this.state.activeProfileId,
      profiles: [this.local(), ...remotes].map((p) => this.withActive(p)),
    };
  }

  get(id: string): Profile {
    const p = this.list().profiles.find((x) => x.id === id);
    if (!p) throw new RpcError('NOT_FOUND', `No connection profile with id ${id}`);
    return p;
  }

  active(): ConnectionInfo {
    return this.connectionOf(this.state.activeProfileId)!;
  }

  /** Any profile's connection (its current addresses), null when no profile has that id. */
  connectionOf(id: string): ConnectionInfo | null {
    const p = this.list().profiles.find((x) => x.id === id);
    return p ? { profileId: p.id, label: p.label, kind: p.kind, baseUrl: p.baseUrl, searchBaseUrl: p.searchBaseUrl } : null;
  }

  save(input: ProfileSaveInput): Profile {
    if (input.id === LOCAL_PROFILE_ID)
      throw new RpcError('CONFLICT', 'The bundled Local profile cannot be edited');
    const remote: StoredRemote = {
      id: input.id ?? randomUUID(),
      label: input.label,
      baseUrl: input.baseUrl,
      searchBaseUrl: input.searchBaseUrl,
    };
    const remotes = [...this.state.remotes];
    const at = remotes.findIndex((r) => r.id === remote.id);
    if (input.id !== undefined && at < 0) throw new RpcError('NOT_FOUND', `No connection profile with id ${input.id}`);
    if (at >= 0) remotes[at] = remote;
    else remotes.push(remote);
    this.persist({ ...this.state, remotes });
    this.deps.logger.info(at >= 0 ? 'Profile updated' : 'Profile created', { profileId: remote.id });
    if (remote.id === this.state.activeProfileId) this.deps.onActiveChanged?.(this.active());
    return this.get(remote.id);
  }

  /** Removes a remote profile; its keys must already be gone. The active one falls back to Local. */
  delete(id: string): ProfileList {
    if (id === LOCAL_PROFILE_ID) throw new RpcError('CONFLICT', 'The bundled Local profile cannot be deleted');
    this.get(id);
    const wasActive = this.state.activeProfileId === id;
    this.persist({
      ...this.state,
      activeProfileId: wasActive ? LOCAL_PROFILE_ID : this.state.activeProfileId,
      remotes: this.state.remotes.filter((r) => r.id !== id),
    });
    this.deps.logger.info('Profile deleted', { profileId: id });
    if (wasActive) this.deps.onActiveChanged?.(this.active());
    return this.list();
  }

  select(id: string): ConnectionInfo {
    this.get(id);
    if (id !== this.state.activeProfileId) {
      this.persist({ ...this.state, activeProfileId: id });
      this.deps.logger.info('Active profile changed', { profileId: id });
    }
    const c = this.active();
    this.deps.onActiveChanged?.(c);
    return c;
  }
}
