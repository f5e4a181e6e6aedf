/** Base64 of bytes in the page (no Buffer there); btoa takes a binary string, built a block at a time. */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  // Blocks keep String.fromCharCode's argument list far below engines' limits.
  for (let i = 0; i < bytes.length; i += 0x8000) parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)));
  return btoa(parts.join(''));
}
