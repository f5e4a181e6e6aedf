/** Hides the faces in a JPEG (the bundled face detector, on a worker thread), and vehicles when asked. */
export interface FaceBlur {
  /** The face detector, id@version. */
  model: string;
  /** The object detector that finds vehicles, id@version (absent: vehicles cannot be blurred). */
  vehicles?: string;
  blur(jpeg: Uint8Array, opts?: { vehicles?: boolean }): Promise<{ bytes: Uint8Array; faces: number; vehicles?: number }>;
}

/** What was done to the faces (and vehicles) of the images leaving the laptop, written beside them. */
export interface FacesReport {
  facesBlurred: boolean;
  /** The face detector, id@version, when it ran. */
  detector: string | null;
  /** Faces hidden, over all images. */
  faces: number;
  /**
   * Number plates hidden by rule (asked for each export; off by default): the lower 60% of every
   * vehicle the object detector finds is blurred, where its plates are in any view.
   */
  vehiclesBlurred: boolean;
  /** The object detector that found them, id@version, when it ran. */
  vehicleDetector: string | null;
  vehicles: number;
  /** Per image looked at: the faces hidden, and the vehicles whose plate band was blurred. */
  images: { name: string; faces: number; plates: number }[];
  /** Images the detector looked at, and those it could not (not JPEG, unreadable, or turned off). */
  checked: string[];
  notChecked: string[];
  note: string;
}

export interface HideOptions {
  /** Faces are hidden (default true). */
  faces?: boolean;
  /** The plate band of every vehicle found is blurred too (default false). */
  vehicles?: boolean;
}

/**
 * Hides faces image by image: `hide` answers the bytes to write in place of the original (the
 * cache keeps the original); `report` says what was done, in data and in a sentence. Vehicles are
 * blurred only with faces: the one switch that turns privacy off turns it all off.
 */
export function createFaceHider(blur: FaceBlur | undefined, opts: HideOptions = {}) {
  const wanted = opts.faces ?? true;
  const vehicles = wanted && (opts.vehicles ?? false) && blur?.vehicles !== undefined;
  const r: FacesReport = {
    facesBlurred: false,
    detector: wanted && blur ? blur.model : null,
    faces: 0,
    vehiclesBlurred: false,
    vehicleDetector: vehicles ? blur!.vehicles! : null,
    vehicles: 0,
    images: [],
    checked: [],
    notChecked: [],
    note: '',
  };
  return {
    async hide(name: string, contentType: string, bytes: Uint8Array): Promise<Uint8Array> {
      if (!wanted || !blur || contentType !== 'image/jpeg') {
        r.notChecked.push(name);
        return bytes;
      }
      try {
        const out = await blur.blur(bytes, vehicles ? { vehicles } : undefined);
        r.checked.push(name);
        r.images.push({ name, faces: out.faces, plates: out.vehicles ?? 0 });
        r.faces += out.faces;
        r.vehicles += out.vehicles ?? 0;
        return out.faces || out.vehicles ? out.bytes : bytes;
      } catch {
        r.notChecked.push(name);
        return bytes;
      }
    },
    report(): FacesReport {
      r.facesBlurred = r.checked.length > 0;
      r.vehiclesBlurred = vehicles && r.checked.length > 0;
      if (!wanted) r.note = 'Faces were not hidden: this was made with face blurring turned off.';
      else if (!blur) r.note = 'Faces were not hidden: no face detector was available.';
      else
        r.note =
          `Faces found by ${r.detector} were hidden (padded boxes, blurred) in ${r.checked.length} image(s): ${r.faces} face(s).` +
          (vehicles ? ` To hide number plates, the lower part of each vehicle found by ${r.vehicleDetector} was blurred, where plates are in any view: ${r.vehicles} vehicle(s).` : '') +
          (r.notChecked.length ? ` Not checked: ${r.notChecked.length} image(s) that are not JPEG or could not be read.` : '') +
          ' The detector misses some faces (profiles, small or covered ones).';
      return { ...r, images: r.images.map((i) => ({ ...i })), checked: [...r.checked], notChecked: [...r.notChecked] };
    },
  };
}
