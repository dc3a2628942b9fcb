import { describe, expect, it } from 'vitest';
import { apiErrorLines, apiErrorMessages, apiFieldErrors } from '../../src/api/errors';

const signUpErrors = {
  errors: [
    { source: { pointer: '/user/email' }, detail: 'has already been taken', title: 'Invalid', code: 'taken', status: '422' },
    { source: { pointer: '/user/password' }, title: 'is too short', status: 422 },
    { code: 'rate_limited' },
  ],
};

describe('API error messages', () => {
  it('takes detail, else title, else code of each error', () => {
    expect(apiErrorMessages(signUpErrors)).toEqual(['has already been taken', 'is too short', 'rate_limited']);
  });

  it("writes sign-up style lines 'field message'", () => {
    expect(apiErrorLines(signUpErrors)).toEqual(['email has already been taken', 'password is too short', 'rate_limited']);
  });

  it('keys messages by the field their pointer names', () => {
    expect(apiFieldErrors(signUpErrors)).toEqual({ email: 'has already been taken', password: 'is too short' });
  });

  it.each([null, undefined, 'Bad Gateway', {}, { errors: 'nope' }, { errors: [] }])(
    'falls back to the default message for a body without errors (%s)',
    (body) => {
      expect(apiErrorMessages(body)).toEqual(['Something went wrong']);
      expect(apiErrorMessages(body, 'We could not fetch costs')).toEqual(['We could not fetch costs']);
    },
  );

  it('shows the server detail of a 422 (as attribute removal does)', () => {
    expect(apiErrorMessages({ errors: [{ detail: 'Attribute is used by a segmentation' }] })[0]).toBe(
      'Attribute is used by a segmentation',
    );
  });
});
