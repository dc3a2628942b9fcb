/**
 * Byte sources for the CSV reading tests: files as the upload delivers them (async chunks of any
 * size), and text in the encodings spreadsheets save, built by hand because `TextEncoder` only
 * writes UTF-8.
 */

/** `bytes` as an upload stream: chunks of `sizes` bytes, cycling through the list. */
export async function* chunked(bytes: Uint8Array, ...sizes: number[]): AsyncGenerator<Uint8Array> {
  const cycle = sizes.length > 0 ? sizes : [bytes.length || 1];
  let at = 0;
  for (let k = 0; at < bytes.length; k++) {
    const size = cycle[k % cycle.length] as number;
    yield bytes.slice(at, at + size);
    at += size;
  }
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

export function concatBytes(...parts: ArrayLike<number>[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** Polish letters in Windows-1250; other characters must be ASCII. */
const WINDOWS_1250: Record<string, number> = {
  ą: 0xb9, ć: 0xe6, ę: 0xea, ł: 0xb3, ń: 0xf1, ó: 0xf3, ś: 0x9c, ź: 0x9f, ż: 0xbf,
  Ą: 0xa5, Ć: 0xc6, Ę: 0xca, Ł: 0xa3, Ń: 0xd1, Ó: 0xd3, Ś: 0x8c, Ź: 0x8f, Ż: 0xaf,
};

export function windows1250(text: string): Uint8Array {
  return Uint8Array.from([...text], (char) => {
    const byte = WINDOWS_1250[char] ?? char.charCodeAt(0);
    if (byte > 0xff || (byte >= 0x80 && !(char in WINDOWS_1250))) throw new Error(`no Windows-1250 byte for ${char} in this table`);
    return byte;
  });
}

/** Latin-1 letters, which Windows-1252 shares (é = 0xE9, ü = 0xFC). */
export function windows1252(text: string): Uint8Array {
  return Uint8Array.from([...text], (char) => {
    const code = char.charCodeAt(0);
    if (code > 0xff || (code >= 0x80 && code < 0xa0)) throw new Error(`not a Latin-1 character: ${char}`);
    return code;
  });
}

export function utf16(text: string, endian: 'le' | 'be', bom: boolean): Uint8Array {
  const bytes = new Uint8Array((text.length + (bom ? 1 : 0)) * 2);
  const view = new DataView(bytes.buffer);
  let at = 0;
  if (bom) {
    view.setUint16(0, 0xfeff, endian === 'le');
    at = 2;
  }
  for (let i = 0; i < text.length; i++, at += 2) view.setUint16(at, text.charCodeAt(i), endian === 'le');
  return bytes;
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
