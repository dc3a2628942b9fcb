import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTRIBUTE_NAME_MAX_LENGTH, ATTRIBUTE_NAME_REQUIRED, ATTRIBUTE_NAME_TAKEN, ATTRIBUTE_NAME_TOO_LONG, type ObjectAttribute } from '../../../models/attributes';
import { ATTRIBUTE_NOT_FOUND } from '../../../server/segmentation/attributes';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Custom attributes over the API: list, create, rename, delete, and what a delete does to reports. */

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function create(name: string, object: ObjectAttribute['object'], who: SignedUp = owner): Promise<ObjectAttribute> {
  const response = await api('POST', '/object_attributes', who, { name, object });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ObjectAttribute;
}

async function list(who: SignedUp = owner): Promise<ObjectAttribute[]> {
  const response = await api('GET', '/object_attributes', who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: ObjectAttribute[] }).items;
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
});
afterAll(() => harness?.close());

describe(`object attributes on ${testEngine}`, () => {
  describe('POST /api/v11/object_attributes', () => {
    it('adds a customer attribute with its customer segment, named alike', async () => {
      const attribute = await create('  Plan tier ', 'customer');
      expect(attribute).toMatchObject({ name: 'Plan tier', object: 'customer' });
      expect(attribute.segment_id).toEqual(expect.any(String));
      const segments = await api('GET', '/customer_segments', owner);
      expect((segments.json() as { items: { id: string; name: string; object_attribute_id: string }[] }).items).toContainEqual(
        expect.objectContaining({ id: attribute.segment_id, name: 'Plan tier', object_attribute_id: attribute.id }),
      );
    });

    it('adds payment and cost attributes without a segment', async () => {
      expect(await create('Channel', 'subscription_history')).toMatchObject({ name: 'Channel', object: 'subscription_history', segment_id: null });
      expect(await create('Department', 'cost')).toMatchObject({ name: 'Department', object: 'cost', segment_id: null });
    });

    it.each([
      ['', ATTRIBUTE_NAME_REQUIRED],
      ['   ', ATTRIBUTE_NAME_REQUIRED],
      ['x'.repeat(ATTRIBUTE_NAME_MAX_LENGTH + 1), ATTRIBUTE_NAME_TOO_LONG],
    ])('refuses the name %j with 422 at /name', async (name, detail) => {
      const response = await api('POST', '/object_attributes', owner, { name, object: 'customer' });
      expect(response.statusCode).toBe(422);
      expect(problemsOf(response)).toEqual([{ pointer: '/name', detail }]);
    });

    it('refuses a name the same object has, case-insensitively; another object may use it', async () => {
      await create('Region', 'customer');
      const response = await api('POST', '/object_attributes', owner, { name: 'REGION', object: 'customer' });
      expect(response.statusCode).toBe(422);
      expect(problemsOf(response)).toEqual([{ pointer: '/name', detail: ATTRIBUTE_NAME_TAKEN }]);
      await create('Region', 'cost');
    });

    it('refuses an unknown object (400) and a missing token (401)', async () => {
      expect((await api('POST', '/object_attributes', owner, { name: 'X', object: 'deal' })).statusCode).toBe(400);
      expectSignInRequired(await api('POST', '/object_attributes', undefined, { name: 'X', object: 'customer' }));
    });

    it('is for full users only (403 for a share-only colleague)', async () => {
      const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
      expect((await api('POST', '/object_attributes', colleague, { name: 'Y', object: 'customer' })).statusCode).toBe(403);
    });
  });

  describe('GET /api/v11/object_attributes', () => {
    it('lists customer, then payment, then cost attributes, each by name; only the account’s own', async () => {
      const mine = await list();
      const objects = mine.map((a) => a.object);
      expect(objects).toEqual([...objects].sort((a, b) => ['customer', 'subscription_history', 'cost'].indexOf(a) - ['customer', 'subscription_history', 'cost'].indexOf(b)));
      const customerNames = mine.filter((a) => a.object === 'customer').map((a) => a.name);
      expect(customerNames).toEqual([...customerNames].sort((a, b) => a.localeCompare(b)));
      expect(await list(stranger)).toEqual([]);
    });

    it('needs a token', async () => {
      expectSignInRequired(await api('GET', '/object_attributes'));
    });
  });

  describe('PUT /api/v11/object_attributes/:id', () => {
    it('renames the attribute and its customer segment', async () => {
      const attribute = await create('Seats', 'customer');
      const response = await api('PUT', `/object_attributes/${attribute.id}`, owner, { name: 'Licences' });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: attribute.id, name: 'Licences', segment_id: attribute.segment_id });
      const segments = (await api('GET', '/customer_segments', owner)).json() as { items: { id: string; name: string }[] };
      expect(segments.items.find((s) => s.id === attribute.segment_id)?.name).toBe('Licences');
    });

    it('refuses a blank or taken name with 422 at /name', async () => {
      const first = await create('Alpha', 'subscription_history');
      await create('Beta', 'subscription_history');
      const blank = await api('PUT', `/object_attributes/${first.id}`, owner, { name: ' ' });
      expect(problemsOf(blank)).toEqual([{ pointer: '/name', detail: ATTRIBUTE_NAME_REQUIRED }]);
      const taken = await api('PUT', `/object_attributes/${first.id}`, owner, { name: 'beta' });
      expect(taken.statusCode).toBe(422);
      expect(problemsOf(taken)).toEqual([{ pointer: '/name', detail: ATTRIBUTE_NAME_TAKEN }]);
    });

    it('answers 404 for another account’s attribute and leaves it unchanged; 401 without a token', async () => {
      const theirs = await create('Theirs', 'customer', stranger);
      const response = await api('PUT', `/object_attributes/${theirs.id}`, owner, { name: 'Mine now' });
      expect(response.statusCode).toBe(404);
      expect(problemsOf(response)).toEqual([{ pointer: undefined, detail: ATTRIBUTE_NOT_FOUND }]);
      expect((await list(stranger)).find((a) => a.id === theirs.id)?.name).toBe('Theirs');
      expectSignInRequired(await api('PUT', `/object_attributes/${theirs.id}`, undefined, { name: 'X' }));
    });
  });

  describe('DELETE /api/v11/object_attributes/:id', () => {
    it('deletes the attribute', async () => {
      const attribute = await create('Temporary', 'cost');
      const response = await api('DELETE', `/object_attributes/${attribute.id}`, owner);
      expect(response.statusCode).toBe(204);
      expect((await list()).map((a) => a.id)).not.toContain(attribute.id);
    });

    it('refuses while a segmentation groups it, naming the segmentation', async () => {
      const attribute = await create('Company size', 'customer');
      const segmentation = await api('POST', '/segmenter_definitions', owner, { name: 'Size', type_name: 'customer_segment', segment_id: attribute.id, mappings: [{ value: '1-10', name: 'Small' }] });
      expect(segmentation.statusCode, segmentation.body).toBe(201);
      const response = await api('DELETE', `/object_attributes/${attribute.id}`, owner);
      expect(response.statusCode).toBe(422);
      expect(problemsOf(response)).toEqual([{ pointer: undefined, detail: "Attribute is used by segmentation 'Size'. Delete the segmentation first." }]);
      expect((await list()).map((a) => a.id)).toContain(attribute.id);
    });

    it('refuses while a share link pins one of its values', async () => {
      const attribute = await create('Country', 'customer');
      const db = harness.db.kysely;
      const account = owner.user.account_id;
      await db.insertInto('customers').values({ account_id: account, id: 'cus-country', name: 'Acme', public_id: null }).execute();
      await db.insertInto('customer_segment_values').values({ account_id: account, customer_id: 'cus-country', segment_id: attribute.segment_id as string, year: 2025, month: 1, value: 'PL' }).execute();
      const created = await api('POST', '/business_reports', owner, { title: 'Board pack', sections: [] });
      expect(created.statusCode, created.body).toBe(201);
      const { id: reportId } = created.json() as { id: string };
      const share = await api('POST', `/business_reports/${reportId}/share_secret`, owner, { segmenter_id: `customer_segment:${attribute.segment_id}`, segment_value: 'PL' });
      expect(share.statusCode, share.body).toBe(201);
      const response = await api('DELETE', `/object_attributes/${attribute.id}`, owner);
      expect(response.statusCode).toBe(422);
      expect(problemsOf(response)).toEqual([{ pointer: undefined, detail: "Attribute is used by a share link of report 'Board pack'. Delete the share link first." }]);
    });

    it('takes the segment off sections split by it and recalculates their report', async () => {
      const attribute = await create('Tier', 'customer');
      const created = await api('POST', '/business_reports', owner, { title: 'Split', sections: [{ definition_id: 'mrr' }] });
      expect(created.statusCode, created.body).toBe(201);
      const { secret } = created.json() as { secret: string };
      await app.reports.settled();
      const read = async () => (await api('GET', `/business_reports/by_secret?secret=${secret}`, owner)).json() as { sections: { id: string; segment_ids: string[] }[]; recalculation_status: string };
      const [section] = (await read()).sections;
      const segmenter = `customer_segment:${attribute.segment_id}`;
      const put = await api('PUT', `/business_report/sections/${section?.id}`, owner, { segment_ids: [segmenter] });
      expect(put.statusCode, put.body).toBe(200);
      await app.reports.settled();
      expect((await read()).sections[0]?.segment_ids).toEqual([segmenter]);
      expect((await api('DELETE', `/object_attributes/${attribute.id}`, owner)).statusCode).toBe(204);
      await app.reports.settled();
      const after = await read();
      expect(after.sections[0]?.segment_ids).toEqual([]);
      expect(after.recalculation_status).toBe('recalculated');
    });

    it('answers 404 for another account’s attribute and keeps it; 401 without a token', async () => {
      const theirs = await create('Keep me', 'cost', stranger);
      expect((await api('DELETE', `/object_attributes/${theirs.id}`, owner)).statusCode).toBe(404);
      expect((await list(stranger)).map((a) => a.id)).toContain(theirs.id);
      expectSignInRequired(await api('DELETE', `/object_attributes/${theirs.id}`));
    });
  });
});
