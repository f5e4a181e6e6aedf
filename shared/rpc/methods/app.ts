import { z } from 'zod';

export const AppInfo = z.object({
  name: z.string(),
  version: z.string(),
  shell: z.enum(['electron', 'browser-host', 'test']),
  dataDir: z.string(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const ConnectionInfo = z.object({
  profileId: z.string(),
  label: z.string(),
  kind: z.enum(['local', 'remote']),
  baseUrl: z.string(),
  searchBaseUrl: z.string(),
});
export type ConnectionInfo = z.infer<typeof ConnectionInfo>;

export const appMethods = {
  'app.info': { input: z.object({}).strict(), output: AppInfo },
  'connection.active': { input: z.object({}).strict(), output: ConnectionInfo },
} as const;

export const appEvents = {
  'connection.changed': ConnectionInfo,
} as const;
