/** Hides the faces in a JPEG (the bundled face detector, on a worker thread). */
export interface FaceBlur {
  /** The detector, id@version. */
  model: string;
  blur(jpeg: Uint8Array): Promise<{ bytes: Uint8Array; faces: number }>;
}

/** What was done to the faces of the images leaving the laptop, written beside them. */
export interface FacesReport {
  facesBlurred: boolean;
  /** The face detector, id@version, when it ran. */
  detector: string | null;
  /** Faces hidden, over all images. */
  faces: number;
  /** Images the detector looked at, and those it could not (not JPEG, unreadable, or turned off). */
  checked: string[];
  notChecked: string[];
  note: string;
}

/**
 * Hides faces image by image: `hide` answers the bytes to write in place of the original (the
 * cache keeps the original); `report` says what was done, in data and in a sentence.
 */
export function createFaceHider(blur: FaceBlur | undefined, wanted: boolean) {
  const r: FacesReport = { facesBlurred: false, detector: wanted && blur ? blur.model : null, faces: 0, checked: [], notChecked: [], note: '' };
  return {
    async hide(name: string, contentType: string, bytes: Uint8Array): Promise<Uint8Array> {
      if (!wanted || !blur || contentType !== 'image/jpeg') {
        r.notChecked.push(name);
        return bytes;
      }
      try {
        const out = await blur.blur(bytes);
        r.checked.push(name);
        r.faces += out.faces;
        return out.faces ? out.bytes : bytes;
      } catch {
        r.notChecked.push(name);
        return bytes;
      }
    },
    report(): FacesReport {
      r.facesBlurred = r.checked.length > 0;
      if (!wanted) r.note = 'Faces were not hidden: this was made with face blurring turned off.';
      else if (!blur) r.note = 'Faces were not hidden: no face detector was available.';
      else
        r.note =
          `Faces found by ${r.detector} were hidden (padded boxes, blurred) in ${r.checked.length} image(s): ${r.faces} face(s).` +
          (r.notChecked.length ? ` Not checked: ${r.notChecked.length} image(s) that are not JPEG or could not be read.` : '') +
          ' The detector misses some faces (profiles, small or covered ones).';
      return { ...r, checked: [...r.checked], notChecked: [...r.notChecked] };
    },
  };
}
