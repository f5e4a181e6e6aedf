import type { Reference } from './plan';

/**
 * What distances were measured from, in words: "Lyon, France", "your site 'Depot'",
 * "45.76, 4.84", "the nearest of the airports". A distance without its origin cannot be checked.
 */
export function originText(ref: Reference): string {
  switch (ref.type) {
    case 'points': {
      const names = ref.points.map((p) => (p.site ? `'${p.label}'` : p.label));
      const sites = ref.points.every((p) => p.site);
      if (ref.points.length === 1) return sites ? `your site ${names[0]}` : names[0]!;
      return `the nearest of ${sites ? 'your sites ' : ''}${names.join('; ')}`;
    }
    case 'saved':
      return `the nearest of ${ref.label}`;
    case 'class':
      return `the nearest of the ${ref.label}`;
    case 'selection': {
      // A feature found by its name is one place; a kind of feature ("a fountain") is many.
      const named = ref.selection.sources.length > 0 && ref.selection.sources.every((s) => s.match?.length && s.match.every((m) => m.some((t) => t.key === 'name')));
      return named ? ref.selection.label : `the nearest ${ref.label}`;
    }
    default:
      return ref.label;
  }
}

/** The answer's closing sentence on distances, or nothing when no item has one. */
export function originSentence(ref: Reference | undefined, hasDistances: boolean): string | null {
  return ref && hasDistances ? `Distances are from ${originText(ref)}.` : null;
}
