import type { MessageRecord } from '../journal-types.js';

/** A conversation message as every store keeps it (the `messages` table; content as JSON text). */
export type MessageRow = {
  seq: number;
  role: MessageRecord['role'];
  batch_id: string | null;
  call_id: string | null;
  content: string;
};

/** A stored message as the record a conversation is read back in. */
export function messageRecord(r: MessageRow): MessageRecord {
  return {
    seq: r.seq,
    role: r.role,
    ...(r.batch_id ? { batchId: r.batch_id } : {}),
    ...(r.call_id ? { callId: r.call_id } : {}),
    content: JSON.parse(r.content) as unknown,
  };
}
