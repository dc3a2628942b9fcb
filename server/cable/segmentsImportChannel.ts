import { idParam, type CableChannel } from './channels';
import { readImportEvent } from './importEvents';
import { importStream } from './streams';

export const SEGMENTS_IMPORT_CHANNEL = 'SegmentsImportChannel';

/**
 * `SegmentsImportChannel` with params `{channel: 'SegmentsImportChannel', id: <import id>}`:
 * the status changes of one attribute values import (`/import-segments`), as
 * `ImportEventMessage`s (server/cable/importEvents.ts). Only a full user of the import's own
 * account may subscribe (the importer's routes ask the same); anything else is rejected. The
 * import's current state is sent right after the confirmation.
 */
export const segmentsImportChannel: CableChannel = {
  name: SEGMENTS_IMPORT_CHANNEL,
  async authorize({ db, auth, params }) {
    const importId = idParam(params, 'id');
    if (!importId || auth.permissionLevel !== 'user') return null;
    const found = await db
      .selectFrom('imports')
      .select('id')
      .where('account_id', '=', auth.accountId)
      .where('id', '=', importId)
      .where('kind', '=', 'segments')
      .executeTakeFirst();
    if (!found) return null;
    return {
      streams: [importStream(auth.accountId, importId)],
      current: () => readImportEvent(db, auth.accountId, importId, 'subscribed', new Date()),
    };
  },
};
