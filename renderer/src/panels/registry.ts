/**
 * The side panel's tabs as data: one descriptor per panel, in tab order. The tab strip, the
 * keyboard shortcuts, the map's result layers and their colours, and which runs Esc cancels are
 * all read from this list; adding a panel is one entry here plus its component and, when it
 * runs something, its store (panels/runs.ts and components/SidePanel.vue are typed by it).
 */
export interface PanelDescriptor {
  id: string;
  /** The tab's label. */
  label: string;
  /** Alt+<alt> shows the panel; Ctrl+<ctrl> (Cmd on a Mac) too, where given. */
  keys: { alt: string; ctrl?: string };
  /** The map layer its results go to, in this colour; only the panel in front has its layer shown. */
  layer: { colour: string } | null;
  /** A cancellable service run: what the status bar calls it and the operation's cancel method. */
  run: { action: string; cancelMethod: 'compute.cancel' | 'stream.cancel' | 'imagery.cancel' } | null;
}

export const PANELS = [
  { id: 'ask', label: 'Compute', keys: { alt: '1' }, layer: { colour: '#e8710a' }, run: { action: 'Ask', cancelMethod: 'compute.cancel' } },
  { id: 'street', label: 'Stream', keys: { alt: '2' }, layer: { colour: '#0f8b6e' }, run: { action: 'Street-level', cancelMethod: 'stream.cancel' } },
  { id: 'imagery', label: 'Imagery', keys: { alt: '3' }, layer: { colour: '#7b3fb5' }, run: { action: 'Imagery search', cancelMethod: 'imagery.cancel' } },
  // History reopens answers of every kind: its results take the colour of Compute's.
  { id: 'history', label: 'History', keys: { alt: '4', ctrl: 'h' }, layer: { colour: '#e8710a' }, run: null },
] as const satisfies readonly PanelDescriptor[];

type Panel = (typeof PANELS)[number];
export type PanelId = Panel['id'];
/** Panels whose results are drawn on a map layer of their own. */
export type LayerPanelId = Extract<Panel, { layer: object }>['id'];
/** Panels with a cancellable run. */
export type RunPanelId = Extract<Panel, { run: object }>['id'];
export type CancelMethod = PanelDescriptor['run'] extends infer R ? (R extends { cancelMethod: infer M } ? M : never) : never;

export const panel = (id: PanelId): PanelDescriptor => PANELS.find((p) => p.id === id)!;

/** The panels with a map layer, in tab order. */
export const LAYER_PANELS = PANELS.filter((p): p is Extract<Panel, { layer: object }> => p.layer !== null).map((p) => p.id);
/** The panels with a run, in tab order. */
export const RUN_PANELS = PANELS.filter((p): p is Extract<Panel, { run: object }> => p.run !== null).map((p) => p.id);

/** How the keys are written for aria-keyshortcuts: the Ctrl key where there is one, else Alt. */
export const keysText = (p: PanelDescriptor): string => (p.keys.ctrl ? `Control+${p.keys.ctrl.toUpperCase()}` : `Alt+${p.keys.alt}`);
