import { defineStore } from 'pinia';
import { computed, readonly, ref } from 'vue';
import type { AppInfo, ConnectionInfo } from '../../../shared/rpc/methods/app';
import type { Connectivity } from '../../../shared/rpc/methods/compute';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { useServices } from '../services';
import type { LinkState } from '../api/link';
import { connectionStateOf } from '../lib/connection';

/** How often the connection is probed: rarely while idle, often while a run waits on the service. */
export const HEALTH_INTERVAL_MS = { idle: 30_000, running: 5_000 } as const;

export type { ConnectionState } from '../lib/connection';

export const useAppStore = defineStore('app', () => {
  const { connection: service } = useServices();
  const link = service.link;
  /** The line to the host; its close is what makes the app offline at once. */
  const linkState = ref<LinkState>(link.state());
  /** When the next attempt to reopen it starts (epoch ms). */
  const retryAt = ref<number | null>(link.retryAt());
  const info = ref<AppInfo | null>(null);
  const connection = ref<ConnectionInfo | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const loading = ref(false);
  /** Reachability of the active service; null until the first run or event says. */
  const connectivity = ref<Connectivity | null>(null);
  /** The last failure of any action, for the status bar. */
  const lastError = ref<{ error: RpcErrorBody; at: number; action: string } | null>(null);
  /** A probe is on its way (service.health). */
  const checking = ref(false);
  /** Runs waiting on the service: while any is, the connection is probed more often. */
  const running = ref(0);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let monitoring = false;

  /** What the top bar, runs and the queue go by; a background probe keeps the last known state. */
  const derived = computed(() => connectionStateOf(linkState.value, connectivity.value));
  const connectionState = computed(() => derived.value.state);
  const offlineCause = computed(() => derived.value.cause);

  const versionText = computed(() => (info.value ? `${info.value.name} ${info.value.version}` : ''));

  async function load(): Promise<void> {
    loading.value = true;
    try {
      // Each fills in as it answers: the version shows at once even while the bundled service starts.
      await Promise.all([
        service.info().then((i) => (i.ok ? (info.value = i.value) : (error.value = i.error))),
        service.active().then((c) => (c.ok ? (connection.value = c.value) : (error.value = c.error))),
      ]);
    } finally {
      loading.value = false;
    }
  }

  /**
   * Service calls report their outcome here: a success means the service answered; failures show
   * in the status bar, and OFFLINE marks it unreachable until the next event or success.
   */
  function report(action: string, error: RpcErrorBody | null): void {
    if (!error) {
      lastError.value = null;
      connectivity.value = { online: true, base: true, search: true, message: null };
      return;
    }
    if (error.code === 'CANCELLED') return;
    lastError.value = { error, at: Date.now(), action };
    if (error.code === 'OFFLINE')
      connectivity.value = { online: false, base: false, search: false, message: error.message };
  }

  function clearError(): void {
    lastError.value = null;
  }

  /**
   * Probes the active connection now. On demand, the state reads "checking" until the answer;
   * a probe already on its way is not doubled. Never throws, never blocks a run.
   */
  async function checkHealth(onDemand = false): Promise<void> {
    if (linkState.value !== 'open') {
      if (onDemand) link.retryNow();
      return;
    }
    if (checking.value) return;
    checking.value = true;
    if (onDemand) connectivity.value = null;
    try {
      const r = await service.health();
      if (r.ok) connectivity.value = r.value;
    } finally {
      checking.value = false;
    }
  }

  function schedule(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!monitoring) return;
    timer = setTimeout(
      () => void checkHealth().finally(schedule),
      running.value > 0 ? HEALTH_INTERVAL_MS.running : HEALTH_INTERVAL_MS.idle,
    );
  }

  /** Probes now and then at an interval until stopMonitor(). */
  function startMonitor(): void {
    if (monitoring) return;
    monitoring = true;
    void checkHealth().finally(schedule);
  }
  function stopMonitor(): void {
    monitoring = false;
    schedule();
  }

  function runStarted(): void {
    running.value++;
    // A run that waits on a service that went away is failed by the next probe: probe sooner.
    if (running.value === 1) schedule();
  }
  function runEnded(): void {
    running.value = Math.max(0, running.value - 1);
  }

  link.onChange((s) => {
    linkState.value = s;
    retryAt.value = link.retryAt();
    // Back on the line: what the host knows may have changed meanwhile (a restart forgets it).
    if (s === 'open') {
      connectivity.value = null;
      void checkHealth();
      void load();
    }
  });

  service.onChanged((c) => {
    connection.value = c;
    connectivity.value = null;
    if (monitoring) void checkHealth();
  });
  service.onConnectivity((c) => {
    connectivity.value = c;
  });

  return {
    info: readonly(info),
    connection: readonly(connection),
    error: readonly(error),
    loading: readonly(loading),
    connectivity: readonly(connectivity),
    lastError: readonly(lastError),
    checking: readonly(checking),
    connectionState,
    offlineCause,
    linkState: readonly(linkState),
    retryAt: readonly(retryAt),
    retryNow: () => link.retryNow(),
    versionText,
    load,
    report,
    clearError,
    checkHealth,
    startMonitor,
    stopMonitor,
    runStarted,
    runEnded,
  };
});
