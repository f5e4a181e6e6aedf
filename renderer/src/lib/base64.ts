/** Base64 of bytes in the page (no Buffer there); btoa takes a binary string, built a block at a time. */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  // Blocks keep String.fromCharCode's argument list far below engines' limits.
  for (let i = 0; i < bytes.length; i += 0x8000) parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)));
  return btoa(parts.join(''));
}

/** Bytes of base64 text in the page. */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
