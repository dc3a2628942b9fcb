import { customerColumnsStream } from '../customers/columnsRunner';
import type { CableChannel } from './channels';

export const CUSTOMER_COLUMNS_CHANNEL = 'CustomerColumnsChannel';

/**
 * `CustomerColumnsChannel` with params `{channel: 'CustomerColumnsChannel'}`: the account's
 * calculated customer columns as their recalculations start and end,
 * `{object: 'customer_related_metric_definition', id, recalculation_status}`
 * (server/customers/columnsRunner.ts `CustomerColumnEvent`). For the full users of the
 * account (the stream is the subscriber's own account's); a shared_report_only user is
 * rejected, and so is a subscription with any other param. Nothing is sent at subscription: the client reads the columns (GET /users/me)
 * when it (re)subscribes.
 */
export const customerColumnsChannel: CableChannel = {
  name: CUSTOMER_COLUMNS_CHANNEL,
  async authorize({ auth, params }) {
    // The channel takes no params: a subscription naming anything (another account's id, a secret) is refused, not read.
    if (auth.permissionLevel !== 'user' || Object.keys(params).some((key) => key !== 'channel')) return null;
    return { streams: [customerColumnsStream(auth.accountId)] };
  },
};
