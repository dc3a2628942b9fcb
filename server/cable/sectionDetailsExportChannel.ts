import { sectionExportStream, statusMessage, type ExportStatusMessage } from '../reports/exports/sectionDetails';
import { idParam, type CableChannel } from './channels';

export const SECTION_DETAILS_EXPORT_CHANNEL = 'SectionDetailsExportChannel';

/**
 * `SectionDetailsExportChannel` with params `{channel: 'SectionDetailsExportChannel', id: <export id>}`:
 * the details export's status when it finishes, `{id, status: 'done', url, file_name}` (the
 * url downloads the file) or `{id, status: 'failed', url: null, file_name: null}`. Only the
 * user who started the export (a full user of its account) may subscribe; anything else is
 * rejected. The current status is sent right after the confirmation, so an export that
 * finished before the subscription (or during a disconnection) is still told.
 */
export const sectionDetailsExportChannel: CableChannel = {
  name: SECTION_DETAILS_EXPORT_CHANNEL,
  async authorize({ db, auth, params }) {
    const id = idParam(params, 'id');
    if (!id || auth.permissionLevel !== 'user') return null;
    const found = await db
      .selectFrom('section_exports')
      .select(['id', 'user_id'])
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!found || found.user_id !== auth.userId) return null;
    return {
      streams: [sectionExportStream(auth.accountId, id)],
      current: async (): Promise<ExportStatusMessage | null> => {
        const row = await db
          .selectFrom('section_exports')
          .select(['id', 'status', 'file_name', 'params'])
          .where('account_id', '=', auth.accountId)
          .where('id', '=', id)
          .executeTakeFirst();
        return row ? statusMessage(row) : null;
      },
    };
  },
};
