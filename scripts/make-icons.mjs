#!/usr/bin/env node
// Draws the app and tray icons and writes them as PNG and ICO into resources/icons/ (committed; run again
// after changing a shape or colour: `node scripts/make-icons.mjs`). No dependencies: shapes are signed
// distance functions sampled 4×4 per pixel, PNG is zlib + CRC-32, ICO holds BMP entries for small sizes
// (the most widely decoded form) and a PNG entry for 256 px. Output is byte-for-byte deterministic.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'resources', 'icons');

// ── shapes, in unit coordinates (0..1, y down); each returns a signed distance (< 0 inside) ──────────
const circle = (cx, cy, r) => (x, y) => Math.hypot(x - cx, y - cy) - r;
const capsule = (ax, ay, bx, by, r) => (x, y) => {
  const px = x - ax,
    py = y - ay,
    dx = bx - ax,
    dy = by - ay;
  const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - t * dx, py - t * dy) - r;
};
const roundedSquare = (inset, radius) => (x, y) => {
  const qx = Math.abs(x - 0.5) - (0.5 - inset - radius);
  const qy = Math.abs(y - 0.5) - (0.5 - inset - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
};
const union =
  (...shapes) =>
  (x, y) =>
    Math.min(...shapes.map((s) => s(x, y)));

// The mark: two agents (nodes) in contact through a link.
const link = union(circle(0.33, 0.67, 0.13), circle(0.67, 0.33, 0.13), capsule(0.33, 0.67, 0.67, 0.33, 0.055));
const bang = union(capsule(0.5, 0.24, 0.5, 0.56, 0.075), circle(0.5, 0.76, 0.08));
const cross = union(capsule(0.3, 0.3, 0.7, 0.7, 0.08), capsule(0.7, 0.3, 0.3, 0.7, 0.08));
const dots = union(circle(0.26, 0.5, 0.09), circle(0.5, 0.5, 0.09), circle(0.74, 0.5, 0.09));

const ICONS = {
  app: { background: roundedSquare(0.04, 0.2), colour: [62, 99, 221], glyph: link },
  'tray-idle': { background: circle(0.5, 0.5, 0.48), colour: [100, 116, 139], glyph: link },
  'tray-working': { background: circle(0.5, 0.5, 0.48), colour: [62, 99, 221], glyph: dots },
  'tray-needs-you': { background: circle(0.5, 0.5, 0.48), colour: [245, 158, 11], glyph: bang },
  'tray-error': { background: circle(0.5, 0.5, 0.48), colour: [229, 72, 77], glyph: cross },
};

/** RGBA pixels, rows top to bottom: the state colour, with the glyph in white on top. */
function render({ background, colour, glyph }, size) {
  const pixels = Buffer.alloc(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let bg = 0;
      let fg = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (px + (sx + 0.5) / n) / size;
          const y = (py + (sy + 0.5) / n) / size;
          if (background(x, y) < 0) {
            bg += 1;
            if (glyph(x, y) < 0) fg += 1;
          }
        }
      }
      const a = bg / (n * n);
      const white = bg ? fg / bg : 0;
      const i = (py * size + px) * 4;
      for (let c = 0; c < 3; c++) pixels[i + c] = Math.round(colour[c] + (255 - colour[c]) * white);
      pixels[i + 3] = Math.round(a * 255);
    }
  }
  return pixels;
}

// ── PNG ─────────────────────────────────────────────────────────────────────────────────────────────
const CRC_TABLE = Array.from({ length: 256 }, (_, k) => {
  let c = k;
  for (let i = 0; i < 8; i++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function png(pixels, size) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) pixels.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ── ICO ─────────────────────────────────────────────────────────────────────────────────────────────
/** A 32-bit BMP icon entry: BITMAPINFOHEADER (height doubled for the mask), BGRA bottom-up, empty AND mask. */
function bmpEntry(pixels, size) {
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8);
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(size * size * 4, 20);
  const xor = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = (y * size + x) * 4;
      const to = ((size - 1 - y) * size + x) * 4;
      xor[to] = pixels[from + 2];
      xor[to + 1] = pixels[from + 1];
      xor[to + 2] = pixels[from];
      xor[to + 3] = pixels[from + 3];
    }
  }
  const maskRow = Math.ceil(size / 32) * 4;
  return Buffer.concat([header, xor, Buffer.alloc(maskRow * size)]);
}
function ico(spec, sizes) {
  const images = sizes.map((size) => {
    const pixels = render(spec, size);
    return { size, data: size >= 256 ? png(pixels, size) : bmpEntry(pixels, size) };
  });
  const dir = Buffer.alloc(6 + 16 * images.length);
  dir.writeUInt16LE(1, 2);
  dir.writeUInt16LE(images.length, 4);
  let offset = dir.length;
  images.forEach(({ size, data }, i) => {
    const e = 6 + 16 * i;
    dir[e] = size >= 256 ? 0 : size;
    dir[e + 1] = size >= 256 ? 0 : size;
    dir.writeUInt16LE(1, e + 4);
    dir.writeUInt16LE(32, e + 6);
    dir.writeUInt32LE(data.length, e + 8);
    dir.writeUInt32LE(offset, e + 12);
    offset += data.length;
  });
  return Buffer.concat([dir, ...images.map((i) => i.data)]);
}

mkdirSync(OUT, { recursive: true });
const write = (name, bytes) => {
  writeFileSync(path.join(OUT, name), bytes);
  console.log(`${name}  ${bytes.length} bytes`);
};
write('app.png', png(render(ICONS.app, 256), 256));
write('app.ico', ico(ICONS.app, [16, 24, 32, 48, 64, 128, 256]));
for (const name of ['tray-idle', 'tray-working', 'tray-needs-you', 'tray-error']) {
  // Windows picks by DPI: 16 px at 100 %, 20 at 125 %, 24 at 150 %, 32 at 200 %.
  write(`${name}.ico`, ico(ICONS[name], [16, 20, 24, 32, 40, 48, 64]));
  write(`${name}.png`, png(render(ICONS[name], 32), 32));
}
