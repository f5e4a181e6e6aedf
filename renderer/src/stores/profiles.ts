import { defineStore } from 'pinia';
import { computed, readonly, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { KeyBackendState, KeyKind, KeyState, KeyTestResult } from '../../../shared/rpc/methods/keys';
import type { ProfileList, ProfileSaveInput } from '../../../shared/rpc/methods/profiles';
import { useServices } from '../services';

export type { KeyKind };

/**
 * Connection profiles and the state of their keys. Key values pass through `setKey` to the
 * main process and are never kept here: the store knows only whether a key is set and when.
 */
export const useProfilesStore = defineStore('profiles', () => {
  const { profiles: service, connection } = useServices();
  const list = ref<ProfileList | null>(null);
  const keyStates = ref<Record<string, KeyState[]>>({});
  const testResults = ref<Record<string, KeyTestResult>>({});
  const error = ref<RpcErrorBody | null>(null);
  const busy = ref(0);
  /** Where keys are kept (keychain, key file, nowhere yet). */
  const backend = ref<KeyBackendState | null>(null);

  const profiles = computed(() => list.value?.profiles ?? []);
  const activeProfileId = computed(() => list.value?.activeProfileId ?? null);
  const testKeyOf = (profileId: string, kind: KeyKind) => `${profileId}:${kind}`;

  /** Runs one call, keeping `error` to the last failure; resolves to the value or null. */
  async function run<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: RpcErrorBody }>): Promise<T | null> {
    busy.value++;
    try {
      const r = await p;
      if (!r.ok) {
        error.value = r.error;
        return null;
      }
      error.value = null;
      return r.value;
    } finally {
      busy.value--;
    }
  }

  async function loadStatus(profileId: string): Promise<void> {
    const s = await run(service.keyStatus(profileId));
    if (s) keyStates.value = { ...keyStates.value, [profileId]: s.keys };
  }

  async function loadBackend(): Promise<void> {
    const b = await service.keyBackend();
    if (b.ok) backend.value = b.value;
  }

  /** Opens the key file with its passphrase (or makes it); the passphrase is not kept here. */
  async function unlockKeyFile(passphrase: string): Promise<boolean> {
    const b = await run(service.unlockKeyFile(passphrase));
    if (!b) return false;
    backend.value = b;
    await load();
    return true;
  }

  async function load(): Promise<void> {
    void loadBackend();
    const l = await run(service.list());
    if (!l) return;
    list.value = l;
    await Promise.all(l.profiles.map((p) => loadStatus(p.id)));
  }

  async function save(input: ProfileSaveInput): Promise<boolean> {
    const p = await run(service.save(input));
    if (p) await load();
    return p !== null;
  }

  async function remove(id: string): Promise<void> {
    const l = await run(service.remove(id));
    if (!l) return;
    list.value = l;
    const { [id]: _gone, ...rest } = keyStates.value;
    void _gone;
    keyStates.value = rest;
  }

  async function select(id: string): Promise<void> {
    if (await run(service.select(id))) await load();
  }

  // A test result speaks of the key it tested; it goes when that key changes.
  function forgetTest(profileId: string, kind: KeyKind): void {
    const { [testKeyOf(profileId, kind)]: _old, ...rest } = testResults.value;
    void _old;
    testResults.value = rest;
  }

  async function setKey(profileId: string, kind: KeyKind, key: string): Promise<boolean> {
    forgetTest(profileId, kind);
    const s = await run(service.setKey(profileId, kind, key));
    if (s) await loadStatus(profileId);
    return s !== null;
  }

  async function deleteKey(profileId: string, kind: KeyKind): Promise<void> {
    forgetTest(profileId, kind);
    if (await run(service.deleteKey(profileId, kind))) await loadStatus(profileId);
  }

  async function testKey(profileId: string, kind: KeyKind): Promise<void> {
    const t = await run(service.testKey(profileId, kind));
    if (t) testResults.value = { ...testResults.value, [testKeyOf(profileId, kind)]: t };
  }

  const keyState = (profileId: string, kind: KeyKind): KeyState | null =>
    keyStates.value[profileId]?.find((k) => k.kind === kind) ?? null;
  const testResult = (profileId: string, kind: KeyKind): KeyTestResult | null =>
    testResults.value[testKeyOf(profileId, kind)] ?? null;

  connection.onChanged(() => void load());

  return {
    list: readonly(list),
    keyStates: readonly(keyStates),
    testResults: readonly(testResults),
    error: readonly(error),
    backend: readonly(backend),
    unlockKeyFile,
    busy: computed(() => busy.value > 0),
    profiles,
    activeProfileId,
    keyState,
    testResult,
    load,
    save,
    remove,
    select,
    setKey,
    deleteKey,
    testKey,
  };
});
