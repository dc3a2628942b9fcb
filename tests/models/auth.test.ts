import { describe, expect, it } from 'vitest';
import {
  acceptInvitationStruct,
  hasFullAccess,
  INVALID_EMAIL_MESSAGE,
  inviteUserStruct,
  isResetRequestEmail,
  newPasswordStruct,
  PASSWORD_MISMATCH_MESSAGE,
  PASSWORD_TOO_LONG_MESSAGE,
  PASSWORD_TOO_SHORT_MESSAGE,
  signInStruct,
  signUpStruct,
} from '../../models/auth';
import { fieldErrors, REQUIRED_MESSAGE } from '../../models/validation';

describe('inviting a colleague', () => {
  it("requires a name and an e-mail ('Required')", () => {
    expect(fieldErrors(inviteUserStruct, { name: '', email: '' })).toEqual({ name: REQUIRED_MESSAGE, email: REQUIRED_MESSAGE });
    expect(fieldErrors(inviteUserStruct, { name: '   ', email: 'grace@example.com' })).toEqual({ name: 'Required' });
  });

  it.each(['grace', 'grace@', 'grace@example', '@example.com', 'grace hopper@example.com'])(
    "refuses %s as 'It does not look like a proper email address'",
    (email) => {
      expect(fieldErrors(inviteUserStruct, { name: 'Grace', email })).toEqual({ email: INVALID_EMAIL_MESSAGE });
    },
  );

  it('accepts a proper address', () => {
    expect(fieldErrors(inviteUserStruct, { name: 'Grace', email: 'grace.hopper+subscope@navy.example.mil' })).toEqual({});
  });

  it('takes an address of at most 254 characters, as a mail server delivers to', () => {
    const domain = '@example.com';
    expect(fieldErrors(inviteUserStruct, { name: 'Grace', email: `${'g'.repeat(254 - domain.length)}${domain}` })).toEqual({});
    expect(fieldErrors(inviteUserStruct, { name: 'Grace', email: `${'g'.repeat(255 - domain.length)}${domain}` })).toEqual({ email: INVALID_EMAIL_MESSAGE });
  });
});

describe('the reset request', () => {
  it.each([
    ['', false],
    ['ada', false],
    ['ada@', false],
    ['@example', false],
    ['ada @example', false],
    ['ada@example', true],
    ['  ada@example.com ', true],
  ])('%j matches text@text: %s', (email, matches) => {
    expect(isResetRequestEmail(email)).toBe(matches);
  });
});

describe('passwords', () => {
  it('need 8 to 128 characters, counted after NFKC', () => {
    expect(fieldErrors(signUpStruct, { email: 'a@b.co', password: 'short' })).toEqual({ password: PASSWORD_TOO_SHORT_MESSAGE });
    expect(fieldErrors(signUpStruct, { email: 'a@b.co', password: 'x'.repeat(129) })).toEqual({ password: PASSWORD_TOO_LONG_MESSAGE });
    expect(fieldErrors(signUpStruct, { email: 'a@b.co', password: 'x'.repeat(128) })).toEqual({});
    // 'ﬀ' (one code point) is 'ff' after NFKC.
    expect(fieldErrors(signUpStruct, { email: 'a@b.co', password: 'ﬀﬀﬀﬀ' })).toEqual({});
  });

  it('must be confirmed, the mismatch reported on the confirmation', () => {
    expect(fieldErrors(newPasswordStruct, { password: 'correct horse', password_confirmation: 'correct hors' })).toEqual({
      password_confirmation: PASSWORD_MISMATCH_MESSAGE,
    });
    expect(fieldErrors(newPasswordStruct, { password: 'correct horse', password_confirmation: '' })).toEqual({
      password_confirmation: REQUIRED_MESSAGE,
    });
    expect(fieldErrors(newPasswordStruct, { password: 'correct horse', password_confirmation: 'correct horse' })).toEqual({});
  });

  it('are checked with the name when accepting an invitation', () => {
    expect(fieldErrors(acceptInvitationStruct, { name: '', password: 'short', password_confirmation: 'other' })).toEqual({
      name: REQUIRED_MESSAGE,
      password: PASSWORD_TOO_SHORT_MESSAGE,
      password_confirmation: PASSWORD_MISMATCH_MESSAGE,
    });
  });
});

describe('sign-in', () => {
  it('checks presence only', () => {
    expect(fieldErrors(signInStruct, { email: '', password: '' })).toEqual({ email: 'Required', password: 'Required' });
    expect(fieldErrors(signInStruct, { email: 'not an address', password: 'x' })).toEqual({});
  });
});

describe('permissions', () => {
  it("give full access to 'user' only", () => {
    expect(hasFullAccess({ permission_level: 'user' })).toBe(true);
    expect(hasFullAccess({ permission_level: 'shared_report_only' })).toBe(false);
    expect(hasFullAccess(null)).toBe(false);
  });
});
