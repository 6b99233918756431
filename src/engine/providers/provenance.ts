import { crc32, inflateSync } from "node:zlib";
import sharp from "sharp";
import type { RenderResult } from "@/core/ports/renderer";

/**
 * Provenance of generative outputs: every image a generative backend made carries the IPTC
 * digital source type "trainedAlgorithmicMedia" in its XMP, so tools that read IPTC (photo
 * libraries, news desks, social networks) can tell it is AI-generated. The marker is added
 * to the bytes the provider returned without re-encoding PNG or JPEG, so the provider's own
 * metadata (its XMP, C2PA manifest chunks, EXIF) is never stripped; an existing XMP packet
 * gets our property added next to its own. WebP (rare from providers) is re-encoded
 * losslessly to PNG with its metadata kept and our packet set.
 */

export const TRAINED_ALGORITHMIC_MEDIA =
  "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
const IPTC_EXT = "http://iptc.org/std/Iptc4xmpExt/2008-02-29/";
const XMP_NS = "http://ns.adobe.com/xap/1.0/";
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_XMP_KEYWORD = "XML:com.adobe.xmp";

const xmlEscape = (s: string) =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!,
  );

/** Our rdf:Description: the IPTC digital source type and the tool that made the image. */
function description(result: Pick<RenderResult, "provider" | "model">): string {
  return (
    `<rdf:Description rdf:about="" xmlns:Iptc4xmpExt="${IPTC_EXT}" xmlns:xmp="${XMP_NS}">` +
    `<Iptc4xmpExt:DigitalSourceType>${TRAINED_ALGORITHMIC_MEDIA}</Iptc4xmpExt:DigitalSourceType>` +
    `<xmp:CreatorTool>${xmlEscape(`photofx (${result.provider} ${result.model})`)}</xmp:CreatorTool>` +
    `</rdf:Description>`
  );
}

/** A whole XMP packet holding only our description. */
export function provenancePacket(result: Pick<RenderResult, "provider" | "model">): string {
  return (
    `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>` +
    `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    description(result) +
    `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
  );
}

/** An existing packet with our description added (unchanged if it already says so). */
function mergePacket(existing: string, result: Pick<RenderResult, "provider" | "model">): string | null {
  if (existing.includes(TRAINED_ALGORITHMIC_MEDIA)) return existing;
  const at = existing.lastIndexOf("</rdf:RDF>");
  if (at < 0) return null;
  return existing.slice(0, at) + description(result) + existing.slice(at);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** An uncompressed iTXt chunk's data for the XMP keyword. */
const xmpITXt = (packet: string) =>
  Buffer.concat([Buffer.from(`${PNG_XMP_KEYWORD}\0\0\0\0\0`, "latin1"), Buffer.from(packet, "utf8")]);

/**
 * The XMP packet of a PNG text chunk: undefined when the chunk is not XMP, null when it is
 * but cannot be read.
 */
function xmpText(type: string, data: Buffer): string | null | undefined {
  if (!["tEXt", "zTXt", "iTXt"].includes(type)) return undefined;
  if (data.subarray(0, PNG_XMP_KEYWORD.length + 1).toString("latin1") !== `${PNG_XMP_KEYWORD}\0`)
    return undefined;
  const rest = data.subarray(PNG_XMP_KEYWORD.length + 1);
  try {
    if (type === "tEXt") return rest.toString("latin1");
    if (type === "zTXt") return inflateSync(rest.subarray(1)).toString("utf8");
    const compressed = rest[0] === 1;
    let at = 2;
    at = rest.indexOf(0, at) + 1; // language tag
    at = rest.indexOf(0, at) + 1; // translated keyword
    const text = rest.subarray(at);
    return (compressed ? inflateSync(text) : text).toString("utf8");
  } catch {
    return null;
  }
}

function markPng(bytes: Buffer, result: RenderResult): Buffer | null {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  const parts: Buffer[] = [bytes.subarray(0, 8)];
  let offset = 8;
  let inserted = false;
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    const end = offset + 12 + length;
    if (end > bytes.length) return null;
    const chunk = bytes.subarray(offset, end);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    const packet = xmpText(type, data);
    if (packet !== undefined) {
      // The provider's XMP (tEXt, zTXt or iTXt): keep it, with our description added; written
      // back as the standard uncompressed iTXt. Unreadable: kept exactly as it was.
      const merged = packet === null ? null : mergePacket(packet, result);
      parts.push(merged ? pngChunk("iTXt", xmpITXt(merged)) : chunk);
      inserted = true;
    } else {
      if ((type === "IDAT" || type === "IEND") && !inserted) {
        parts.push(pngChunk("iTXt", xmpITXt(provenancePacket(result))));
        inserted = true;
      }
      parts.push(chunk);
    }
    offset = end;
    if (type === "IEND") break;
  }
  return inserted ? Buffer.concat(parts) : null;
}

function markJpeg(bytes: Buffer, result: RenderResult): Buffer | null {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const header = Buffer.from(`${XMP_NS}\0`, "latin1");
  const segment = (packet: string) => {
    const body = Buffer.concat([header, Buffer.from(packet, "utf8")]);
    if (body.length + 2 > 0xffff) return null;
    const head = Buffer.from([0xff, 0xe1, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  // Walk the markers before the image data: keep APP0 (JFIF) first, merge into an XMP APP1.
  let offset = 2;
  let insertAt = 2;
  while (offset + 4 <= bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1]!;
    if (marker === 0xda || marker === 0xd9) break; // start of scan / end of image
    const length = bytes.readUInt16BE(offset + 2);
    const body = bytes.subarray(offset + 4, offset + 2 + length);
    if (marker === 0xe1 && body.subarray(0, header.length).equals(header)) {
      const merged = mergePacket(body.subarray(header.length).toString("utf8"), result);
      const seg = merged ? segment(merged) : null;
      if (!seg) return bytes; // keep the provider's packet as it is
      return Buffer.concat([bytes.subarray(0, offset), seg, bytes.subarray(offset + 2 + length)]);
    }
    if (marker === 0xe0) insertAt = offset + 2 + length;
    offset += 2 + length;
  }
  const seg = segment(provenancePacket(result));
  return seg ? Buffer.concat([bytes.subarray(0, insertAt), seg, bytes.subarray(insertAt)]) : null;
}

/** The result with the AI-generated marker in its metadata. */
export async function markAiGenerated(result: RenderResult): Promise<RenderResult> {
  const bytes = Buffer.from(result.bytes);
  const marked =
    result.mime === "image/png"
      ? markPng(bytes, result)
      : result.mime === "image/jpeg"
        ? markJpeg(bytes, result)
        : null;
  if (marked) return { ...result, bytes: new Uint8Array(marked) };
  // WebP or an unexpected layout: a lossless PNG with the source's metadata kept and ours set.
  const png = await sharp(bytes).keepMetadata().withXmp(provenancePacket(result)).png().toBuffer();
  return { ...result, bytes: new Uint8Array(png), mime: "image/png" };
}
