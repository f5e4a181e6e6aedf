import type { z } from 'zod';
import { appEvents, appMethods } from './methods/app';
import { keysMethods } from './methods/keys';
import { profilesMethods } from './methods/profiles';
import { exportEvents, exportMethods } from './methods/export';
import { cacheMethods } from './methods/cache';
import { computeEvents, computeMethods } from './methods/compute';
import { compareMethods } from './methods/compare';
import { evidenceMethods } from './methods/evidence';
import { facingMethods } from './methods/facing';
import { fieldkitMethods } from './methods/fieldkit';
import { queueEvents, queueMethods } from './methods/queue';
import { historyMethods } from './methods/history';
import { mediaMethods } from './methods/media';
import { photosMethods } from './methods/photos';
import { uploadsMethods } from './methods/uploads';
import { layersEvents, layersMethods } from './methods/layers';
import { packEvents, packMethods } from './methods/pack';
import { placesMethods } from './methods/places';
import type { EVENT_NAMES, METHOD_NAMES } from './names';

/**
 * The RPC contract: method -> {input, output} schemas, and event -> payload schema.
 * Each domain declares its own map in methods/; this file only joins them.
 */
export const methods = {
  ...appMethods,
  ...profilesMethods,
  ...keysMethods,
  ...exportMethods,
  ...computeMethods,
  ...historyMethods,
  ...cacheMethods,
  ...mediaMethods,
  ...photosMethods,
  ...fieldkitMethods,
  ...evidenceMethods,
  ...queueMethods,
  ...compareMethods,
  ...facingMethods,
  ...uploadsMethods,
  ...layersMethods,
  ...packMethods,
  ...placesMethods,
} as const;

export const events = {
  ...appEvents,
  ...exportEvents,
  ...computeEvents,
  ...queueEvents,
  ...layersEvents,
  ...packEvents,
} as const;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type MethodParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

export const methodNames = Object.keys(methods) as MethodName[];
export const eventNames = Object.keys(events) as EventName[];

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(methods, name);
}
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.hasOwn(events, name);
}

// Compile-time guard: names.ts (used by the preload allowlist) lists exactly the contract's names.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const methodNamesMatch: Same<(typeof METHOD_NAMES)[number], MethodName> = true;
const eventNamesMatch: Same<(typeof EVENT_NAMES)[number], EventName> = true;
void methodNamesMatch;
void eventNamesMatch;
