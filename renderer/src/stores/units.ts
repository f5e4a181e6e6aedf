import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { readPref, writePref } from '../lib/prefs';
import { DEFAULT_UNITS, DISTANCE_UNITS, SHORT_UNITS, type DistanceUnit, type ShortUnit, type Units } from '../lib/units';

const KEY = 'units';

function read(): Units {
  const [d, s] = (readPref(KEY) ?? '').split(',');
  return {
    distance: DISTANCE_UNITS.some((u) => u.value === d) ? (d as DistanceUnit) : DEFAULT_UNITS.distance,
    short: SHORT_UNITS.some((u) => u.value === s) ? (s as ShortUnit) : DEFAULT_UNITS.short,
  };
}

/** The units lengths are shown in (tables, answers, details, the scale bar); remembered. */
export const useUnitsStore = defineStore('units', () => {
  const units = ref<Units>(read());
  function set(next: Partial<Units>): void {
    units.value = { ...units.value, ...next };
    writePref(KEY, `${units.value.distance},${units.value.short}`);
  }
  return { units: computed(() => units.value), set };
});
