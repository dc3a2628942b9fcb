import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Stripe from 'stripe';
import { ApiError } from '../http/errors';
import { enqueueSync } from '../integrations/runner';

/**
 * Stripe's Connect webhook (docs/stripe.md): `POST /integrations/stripe/webhooks`, no bearer
 * token: the `Stripe-Signature` header is checked against STRIPE_WEBHOOK_SECRET over the raw
 * body (the stripe SDK's constructEvent; five minutes of tolerance). A valid event names the
 * connected account (`account: acct_…`); its integration (found by that id) gets an
 * incremental sync queued, which reads the changes through the events list. Events of accounts
 * not connected here are acknowledged and ignored (Stripe would retry anything else).
 */

export const BAD_SIGNATURE = 'The Stripe-Signature header does not sign this body';
export const WEBHOOKS_OFF = 'Stripe webhooks are not configured here';
/** Stripe's events are a few kilobytes; Stripe itself caps them far below this. */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

/** Event types that change what a sync reads (others are acknowledged only). */
const SYNCED_EVENTS = /^(customer\.(created|updated|deleted)|customer\.subscription\.|invoice\.)/;

const Answer = Type.Object({ received: Type.Boolean(), queued: Type.Boolean({ description: 'Whether a sync of the connected account was queued' }) });

export const stripeWebhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The raw body, exactly as signed, for these routes only (this plugin's own scope).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
  const verifier = new Stripe('sk_webhook_verification_only');

  app.post(
    '/integrations/stripe/webhooks',
    {
      schema: {
        summary: 'Receive a Stripe Connect event',
        description: 'Called by Stripe, signed with the endpoint secret (Stripe-Signature). Queues an incremental sync of the connected account the event names.',
        tags: ['integrations'],
        response: { 200: Answer },
      },
    },
    async (request) => {
      const secret = app.config.stripeWebhookSecret;
      if (!secret) throw ApiError.of(400, WEBHOOKS_OFF);
      const signature = request.headers['stripe-signature'];
      const body = typeof request.body === 'string' ? request.body : '';
      let event: Stripe.Event;
      try {
        if (typeof signature !== 'string' || signature.length > 2000) throw new Error('no signature');
        event = verifier.webhooks.constructEvent(body, signature, secret);
      } catch {
        throw ApiError.of(400, BAD_SIGNATURE, '/headers/stripe-signature');
      }
      const account = typeof event.account === 'string' ? event.account : null;
      if (!account || typeof event.type !== 'string' || !SYNCED_EVENTS.test(event.type)) return { received: true, queued: false };
      const integration = await app.db.kysely
        .selectFrom('integrations')
        .select('account_id')
        .where('name', '=', 'stripe')
        .where('external_account_id', '=', account)
        .where('configured', '=', true)
        .executeTakeFirst();
      if (!integration) return { received: true, queued: false };
      await enqueueSync(app, integration.account_id, 'stripe');
      return { received: true, queued: true };
    },
  );
};
