import { Type, type Static } from '@fastify/type-provider-typebox';
import { ITEM_TYPES } from '../../models/constants';
import { DISCOUNT_KINDS, PAYMENT_TEXT_MAX_LENGTH } from '../../models/payments';
import { Text } from '../customers/schemas';

/**
 * The wire shapes of the payment calls. Bodies are typed loosely where the spec has a message
 * for a wrong value (a blank product, a month count below one, a start outside the window):
 * those are checked by server/payments/validation.ts and answered 422 with the message on the
 * field; only a value of the wrong JSON type is a 400 of the schema.
 */

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Day = (description: string) => Text(32, { description });
const IdText = Text(200, { minLength: 1 });

export const PaymentSchema = Type.Object({
  id: Type.String(),
  customer: Type.Object({ id: Type.String(), name: Type.String() }),
  customer_id: Type.String(),
  invoice_number: Type.Union([Type.String(), Type.Null()]),
  started_at: Type.String({ description: 'YYYY-MM-DD' }),
  ended_at: Type.Union([Type.String(), Type.Null()], { description: 'First day after the service period; null: open-ended' }),
  duration_in_months: Type.Union([Type.Number(), Type.Null()], { description: 'Whole months, or days / (365/12); null when open-ended' }),
  total_value: Type.Union([Type.Number(), Type.Null()], { description: 'Minor units of `currency`; null when open-ended' }),
  monthly_amount: Type.Number({ description: 'Minor units per month, exact (may be fractional)' }),
  currency: Type.String(),
  items: Type.Array(Type.Object({ product_key: Type.String(), product_name: Type.String(), type: Type.Union(ITEM_TYPES.map((type) => Type.Literal(type))), quantity: Type.Number() })),
  discount: Type.Union([
    Type.Object({ kind: Type.Union(DISCOUNT_KINDS.map((kind) => Type.Literal(kind))), monthly_amount: Type.Number({ description: 'Minor units per month' }), months: Type.Union([Type.Number(), Type.Null()]) }),
    Type.Null(),
  ]),
  segments: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), value: Type.Union([Type.String(), Type.Null()]) }), {
    description: 'Every payment attribute of the account, with this payment’s value (null: none)',
  }),
  latest_history_id: Type.String({ description: 'The id to edit the payment by (the payment id)' }),
  version: Type.Integer(),
  source: Type.String(),
});
export type PaymentAnswer = Static<typeof PaymentSchema>;

export const SegmentsSchema = Type.Array(Type.Object({ id: IdText, value: Type.Union([Text(PAYMENT_TEXT_MAX_LENGTH), Type.Null()]) }), {
  maxItems: 100,
  description: 'Payment attribute values (object attributes of object subscription_history); null or blank removes the value',
});

const fields = {
  customer_id: Type.Optional(Text(200, { description: 'An existing customer of the account' })),
  customer_name: Type.Optional(Text(PAYMENT_TEXT_MAX_LENGTH, { description: 'A new customer, created with the payment' })),
  started_at: Day('YYYY-MM-DD; a new payment starts from 60 days ago to tomorrow'),
  duration_in_months: Type.Optional(Type.Number({ description: 'Whole months (>= 1): ended_at = started_at + months' })),
  // Null first: the coercing validator would turn a null into '' for a string tried first.
  ended_at: Type.Optional(Type.Union([Type.Null(), Day('Any day after started_at; null: open-ended')])),
  total_value: Type.Optional(Type.Number({ description: 'Minor units; required unless open-ended' })),
  monthly_amount: Type.Optional(Type.Number({ description: 'Minor units per month; required when open-ended' })),
  currency: Text(8, { description: 'ISO 4217, any case' }),
  invoice_number: Type.Optional(Nullable(Text(PAYMENT_TEXT_MAX_LENGTH))),
  items: Type.Array(
    Type.Object({
      product_key: Text(PAYMENT_TEXT_MAX_LENGTH, { description: 'A product key; a new one is created' }),
      type: Text(32, { description: ITEM_TYPES.join(' | ') }),
      quantity: Type.Number({ description: 'Units sold, >= 1' }),
    }),
    { maxItems: 10, description: 'Exactly one item' },
  ),
  discount: Type.Optional(
    Type.Union([
      Type.Object({
        kind: Text(16, { description: DISCOUNT_KINDS.join(' | ') }),
        monthly_amount: Type.Number({ description: 'Minor units per month' }),
        months: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'A finite discount’s months (>= 1)' })),
      }),
      Type.Null(),
    ]),
  ),
  segments: Type.Optional(SegmentsSchema),
};

export const UpsertBodySchema = Type.Object(fields, { additionalProperties: false });
export type UpsertBody = Static<typeof UpsertBodySchema>;

/** An edit: any of the upsert's fields (missing ones keep their value), or `{segments}` alone. */
export const EditBodySchema = Type.Partial(Type.Object(fields), { additionalProperties: false });
export type EditBody = Static<typeof EditBodySchema>;

export const PaymentIdParams = Type.Object({ id: Text(200, { minLength: 1 }) });
