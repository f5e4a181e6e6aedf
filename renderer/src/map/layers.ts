/** The result layers of the workspace: one per tab, only the active tab's layer is shown. */
export const LAYERS = ['ask', 'imagery', 'street', 'history'] as const;
export type LayerName = (typeof LAYERS)[number];
