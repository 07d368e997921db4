// Codecs for the three opcodes a current driver uses: OP_QUERY (legacy handshake only), OP_MSG
// (everything else) and OP_REPLY (the answer to an OP_QUERY). Layouts follow the MongoDB wire
// protocol reference: a 16-byte little-endian header, then the opcode's body.
import { deserialize, serialize, type Document } from 'bson';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_COMPRESSED = 2012;
export const OP_MSG = 2013;

export const HEADER_SIZE = 16;
export const MAX_MESSAGE_SIZE = 48_000_000;
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
const KNOWN_FLAGS = CHECKSUM_PRESENT | MORE_TO_COME | (1 << 16);

/** Promote int32/double to number and int64 to number when it fits, as the driver itself does by default. */
export const BSON_READ_OPTIONS = { promoteLongs: true, promoteValues: true, promoteBuffers: false, validation: { utf8: false } } as const;
export const BSON_WRITE_OPTIONS = { ignoreUndefined: true } as const;

export interface FrameHeader {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

/** A frame whose header or layout is broken: the connection cannot be resynchronised. */
export class FrameError extends Error {}

/** A well-framed message whose BSON is invalid: the client gets an error reply, the connection stays. */
export class BsonPayloadError extends Error {}

export interface CommandRequest {
  kind: 'msg' | 'query';
  requestId: number;
  /** OP_MSG moreToCome: the client wants no reply. */
  moreToCome: boolean;
  /** Database named by `$db` (OP_MSG) or by `<db>.$cmd` (OP_QUERY). */
  db: string;
  body: Document;
}

export function readHeader(buffer: Buffer, offset: number): FrameHeader {
  return {
    length: buffer.readInt32LE(offset),
    requestId: buffer.readInt32LE(offset + 4),
    responseTo: buffer.readInt32LE(offset + 8),
    opCode: buffer.readInt32LE(offset + 12),
  };
}

function readDocument(buffer: Buffer, offset: number, end: number): { doc: Document; next: number } {
  if (offset + 5 > end) throw new FrameError('truncated BSON document');
  const size = buffer.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new FrameError(`BSON document length ${size} overruns its section`);
  try {
    return { doc: deserialize(buffer.subarray(offset, offset + size), BSON_READ_OPTIONS), next: offset + size };
  } catch (error) {
    throw new BsonPayloadError(`invalid BSON: ${(error as Error).message}`);
  }
}

function readCString(buffer: Buffer, offset: number, end: number): { value: string; next: number } {
  const zero = buffer.indexOf(0, offset);
  if (zero < 0 || zero >= end) throw new FrameError('unterminated C string');
  return { value: buffer.toString('utf8', offset, zero), next: zero + 1 };
}

/** Decodes one complete frame (header included) into a command request. */
export function decodeRequest(frame: Buffer): CommandRequest {
  const header = readHeader(frame, 0);
  if (header.opCode === OP_MSG) return decodeMsg(frame, header);
  if (header.opCode === OP_QUERY) return decodeQuery(frame, header);
  if (header.opCode === OP_COMPRESSED) throw new FrameError('OP_COMPRESSED is not supported (no compressor was negotiated)');
  throw new FrameError(`unsupported opcode ${header.opCode}`);
}

function decodeMsg(frame: Buffer, header: FrameHeader): CommandRequest {
  const flags = frame.readUInt32LE(HEADER_SIZE);
  // Bits 0-15 are "required" flags: an unknown one there means we cannot honour the message.
  if ((flags & 0xffff & ~KNOWN_FLAGS) !== 0) throw new FrameError(`unsupported OP_MSG flag bits 0x${flags.toString(16)}`);
  const end = flags & CHECKSUM_PRESENT ? frame.length - 4 : frame.length;
  let offset = HEADER_SIZE + 4;
  let body: Document | undefined;
  const sequences: Array<{ id: string; docs: Document[] }> = [];
  while (offset < end) {
    const kind = frame[offset];
    offset += 1;
    if (kind === 0) {
      if (body) throw new FrameError('OP_MSG has more than one body section');
      const read = readDocument(frame, offset, end);
      body = read.doc;
      offset = read.next;
    } else if (kind === 1) {
      if (offset + 4 > end) throw new FrameError('truncated document sequence');
      const size = frame.readInt32LE(offset);
      const sectionEnd = offset + size;
      if (size < 5 || sectionEnd > end) throw new FrameError(`document sequence length ${size} overruns the message`);
      const id = readCString(frame, offset + 4, sectionEnd);
      let cursor = id.next;
      const docs: Document[] = [];
      while (cursor < sectionEnd) {
        const read = readDocument(frame, cursor, sectionEnd);
        docs.push(read.doc);
        cursor = read.next;
      }
      sequences.push({ id: id.value, docs });
      offset = sectionEnd;
    } else {
      throw new FrameError(`unknown OP_MSG section kind ${String(kind)}`);
    }
  }
  if (!body) throw new FrameError('OP_MSG without a body section');
  for (const sequence of sequences) body[sequence.id] = sequence.docs;
  const db = typeof body.$db === 'string' ? body.$db : '';
  return { kind: 'msg', requestId: header.requestId, moreToCome: (flags & MORE_TO_COME) !== 0, db, body };
}

function decodeQuery(frame: Buffer, header: FrameHeader): CommandRequest {
  let offset = HEADER_SIZE + 4; // flags
  const name = readCString(frame, offset, frame.length);
  offset = name.next + 8; // numberToSkip, numberToReturn
  const query = readDocument(frame, offset, frame.length).doc;
  const dot = name.value.indexOf('.');
  const db = dot < 0 ? name.value : name.value.slice(0, dot);
  const collection = dot < 0 ? '' : name.value.slice(dot + 1);
  // Drivers wrap commands sent through OP_QUERY as {$query: cmd, $readPreference: ...}.
  const body = query.$query && typeof query.$query === 'object' ? (query.$query as Document) : query;
  return { kind: 'query', requestId: header.requestId, moreToCome: false, db, body: collection === '$cmd' ? body : { $legacyQuery: name.value } };
}

let nextResponseId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(HEADER_SIZE);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(nextResponseId++ & 0x7fffffff, 4);
  buffer.writeInt32LE(responseTo, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

export function encodeMsgReply(responseTo: number, doc: Document): Buffer {
  const body = serialize(doc, BSON_WRITE_OPTIONS);
  const prefix = Buffer.alloc(5); // flagBits = 0, section kind 0
  return Buffer.concat([header(HEADER_SIZE + 5 + body.length, responseTo, OP_MSG), prefix, body]);
}

export function encodeQueryReply(responseTo: number, doc: Document): Buffer {
  const body = serialize(doc, BSON_WRITE_OPTIONS);
  const fields = Buffer.alloc(20); // responseFlags, cursorID (int64), startingFrom, numberReturned
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(HEADER_SIZE + 20 + body.length, responseTo, OP_REPLY), fields, body]);
}
