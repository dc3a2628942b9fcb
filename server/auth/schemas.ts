import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { CustomerColumnSchema as FullCustomerColumnSchema } from '../customers/columnsList';

/**
 * TypeBox schemas shared by the auth routes; @fastify/swagger turns them into the OpenAPI
 * document from which the client's types are generated.
 */

export const PermissionLevelSchema = Type.Union([Type.Literal('user'), Type.Literal('shared_report_only')], {
  description: "'user' has full access; 'shared_report_only' sees reports only through their share links",
});

/** A stored column choice of the customers table (`{id, visible}`); GET/PUT /users/me answer the full columns instead. */
export const CustomerColumnSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: 'One column of the customers table as the user stored it ({id, visible}); GET and PUT /users/me answer the full column list',
});

export const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String({ description: 'Lower-case' }),
  name: Type.String(),
  account_id: Type.String(),
  permission_level: PermissionLevelSchema,
  currency: Type.String({ description: "ISO 4217 code: the user's own choice, else the account currency" }),
  customer_columns: Type.Array(CustomerColumnSchema),
  invitation_pending: Type.Boolean({ description: 'Invited and has not accepted yet (cannot sign in)' }),
  api_token: Type.Optional(Type.String({ description: "Only in GET/PUT /users/me, for permission_level 'user'" })),
});
export type ApiUser = Static<typeof UserSchema>;

export const UserEnvelopeSchema = Type.Object({ user: UserSchema });

/** The signed-in user as GET/PUT /users/me answer it: the customers table's columns complete (server/customers/columnsList.ts). */
export const MeSchema = Type.Object({
  ...UserSchema.properties,
  customer_columns: Type.Array(FullCustomerColumnSchema, {
    description:
      'The customers table’s columns in the user’s order with their visibility, completed with every column the account offers (new ones appended hidden; ' +
      'a user who never chose: name, public_id, added_at, mrr and total visible, then attribute and calculated columns hidden)',
  }),
});
export const MeEnvelopeSchema = Type.Object({ user: MeSchema });

/** An answer that signs the user in: the token comes in the `Authorization` header. */
export function signedIn<T extends TSchema>(schema: T, description: string): T {
  return {
    ...schema,
    description,
    headers: { Authorization: { type: 'string', description: '`Bearer <jwt>`: send it as the Authorization header of later calls' } },
  };
}

export const ErrorSchema = Type.Object({
  errors: Type.Array(
    Type.Object({
      source: Type.Optional(Type.Object({ pointer: Type.String({ description: 'JSON pointer into the request body' }) })),
      detail: Type.String(),
      title: Type.String(),
      code: Type.Optional(Type.String()),
      status: Type.String(),
    }),
  ),
});

const ERROR_DESCRIPTIONS = {
  400: 'Malformed request (wrong types, missing fields)',
  401: 'Missing, invalid, expired or revoked token (detail: You need to sign in or sign up before continuing.)',
  403: 'Signed in without the rights for this call',
  404: 'Not found (or not in your account)',
  409: 'Busy: the resource is being worked on (e.g. a calculated column being computed); try again when it is done',
  413: 'The uploaded file is too large',
  415: 'Not a multipart upload',
  422: 'Invalid values: one entry per problem, with a pointer',
  429: 'Too many sign-in attempts; see the Retry-After header',
} as const;

/** Error answers of a route, in the spec's error shape. */
export function errorResponses<Code extends keyof typeof ERROR_DESCRIPTIONS>(...codes: Code[]): Record<Code, typeof ErrorSchema> {
  const responses: Partial<Record<Code, typeof ErrorSchema>> = {};
  for (const code of codes) responses[code] = { ...ErrorSchema, description: ERROR_DESCRIPTIONS[code] };
  return responses as Record<Code, typeof ErrorSchema>;
}

/** Marks a route as needing `Authorization: Bearer <jwt>` in the OpenAPI document. */
export const BEARER = [{ bearer: [] }];
