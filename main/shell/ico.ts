/**
 * Reading and writing .ico files of 32-bit BMP images, for the tray badge (tray.ts). Windows' tray picks the
 * icon size it needs only from an .ico: Electron's `Tray.setImage` asks the image for an HICON of
 * `GetSystemMetrics(SM_CXSMICON)` pixels (16 at 100 %, 48 at 300 %), which an image loaded from an .ico answers
 * with `LoadImage(path, IMAGE_ICON, size, size)` — the entry of that size — while any other image answers with
 * its 1× bitmap whatever the size (electron shell/browser/api/electron_api_tray.cc `Tray::SetImage`,
 * shell/common/api/electron_api_native_image.cc `NativeImage::GetHICON`, `ReadICOFromPath`; Chromium
 * ui/gfx/image/image_skia.cc `ImageSkia::GetBitmap` → `FindRepresentation(1.0f)`).
 *
 * Layout (Microsoft Learn "Icons" / ICONDIR, ICONDIRENTRY; "BITMAPINFOHEADER"): a 6-byte header, a 16-byte entry
 * per image, then each image as a BITMAPINFOHEADER whose height counts the XOR and AND bitmaps, the BGRA rows
 * bottom-up, and a 1-bit AND mask padded to 32 bits per row (all zero: the alpha channel decides).
 */

/** One square image: `size`×`size` pixels, B G R A per pixel, top row first, straight (not premultiplied) alpha. */
export interface IcoImage {
  size: number;
  bgra: Buffer;
}

const HEADER = 6;
const ENTRY = 16;
const BITMAPINFOHEADER = 40;

/** The 32-bit BMP images of an .ico (PNG-compressed entries are skipped: ours have none). */
export function readIco(file: Buffer): IcoImage[] {
  if (file.length < HEADER || file.readUInt16LE(0) !== 0 || file.readUInt16LE(2) !== 1)
    throw new Error('not an .ico file (ICONDIR reserved 0, type 1)');
  const images: IcoImage[] = [];
  for (let i = 0; i < file.readUInt16LE(4); i += 1) {
    const entry = HEADER + i * ENTRY;
    const size = file[entry] || 256;
    const offset = file.readUInt32LE(entry + 12);
    if (file.readUInt32LE(offset) !== BITMAPINFOHEADER || file.readUInt16LE(offset + 14) !== 32) continue;
    const bgra = Buffer.alloc(size * size * 4);
    const pixels = offset + BITMAPINFOHEADER;
    for (let y = 0; y < size; y += 1) {
      const row = pixels + (size - 1 - y) * size * 4; // bottom-up
      file.copy(bgra, y * size * 4, row, row + size * 4);
    }
    images.push({ size, bgra });
  }
  return images;
}

export function writeIco(images: readonly IcoImage[]): Buffer {
  const bodies = images.map(({ size, bgra }) => {
    const andRowBytes = Math.ceil(size / 32) * 4;
    const body = Buffer.alloc(BITMAPINFOHEADER + size * size * 4 + andRowBytes * size);
    body.writeUInt32LE(BITMAPINFOHEADER, 0);
    body.writeInt32LE(size, 4);
    body.writeInt32LE(size * 2, 8); // XOR + AND
    body.writeUInt16LE(1, 12); // planes
    body.writeUInt16LE(32, 14); // bits per pixel
    body.writeUInt32LE(size * size * 4 + andRowBytes * size, 20); // image size
    for (let y = 0; y < size; y += 1)
      bgra.copy(body, BITMAPINFOHEADER + (size - 1 - y) * size * 4, y * size * 4, (y + 1) * size * 4);
    return body;
  });
  const head = Buffer.alloc(HEADER + ENTRY * images.length);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(images.length, 4);
  let offset = head.length;
  images.forEach(({ size }, i) => {
    const entry = HEADER + i * ENTRY;
    head[entry] = size >= 256 ? 0 : size;
    head[entry + 1] = size >= 256 ? 0 : size;
    head.writeUInt16LE(1, entry + 4); // planes
    head.writeUInt16LE(32, entry + 6); // bits per pixel
    head.writeUInt32LE(bodies[i]!.length, entry + 8);
    head.writeUInt32LE(offset, entry + 12);
    offset += bodies[i]!.length;
  });
  return Buffer.concat([head, ...bodies]);
}

/**
 * Straight alpha to Skia's premultiplied N32, which `nativeImage.createFromBitmap` and `addRepresentation({buffer})`
 * take raw buffers as (electron shell/common/skia_util.cc `AddImageSkiaRepFromBuffer`: kPremul_SkAlphaType).
 */
export function premultiplied(bgra: Buffer): Buffer {
  const out = Buffer.from(bgra);
  for (let i = 0; i < out.length; i += 4) {
    const a = out[i + 3]!;
    for (let c = 0; c < 3; c += 1) out[i + c] = Math.round((out[i + c]! * a) / 255);
  }
  return out;
}
