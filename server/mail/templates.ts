import { INVITATION_TTL_MS, RESET_TOKEN_TTL_MS } from '../auth/lifetimes';

/** The content of an e-mail, before it is addressed. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
  link: string;
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** Names come from users: one line, no control characters. */
const plain = (value: string) => value.replace(/\p{Cc}+/gu, ' ').trim();

const hours = (ms: number) => Math.round(ms / 3_600_000);
const days = (ms: number) => Math.round(ms / 86_400_000);

function layout(paragraphs: string[], link: string, action: string): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${p}</p>`).join('\n');
  const href = escapeHtml(link);
  return `<!doctype html>
<html><body style="font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1a1b1e;line-height:1.5">
<div style="max-width:560px;margin:0 auto;padding:24px">
${body}
<p style="margin:24px 0"><a href="${href}" style="background:#228be6;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(action)}</a></p>
<p style="margin:0;color:#868e96;font-size:13px">Or paste this link into your browser: <a href="${href}">${href}</a></p>
</div></body></html>
`;
}

export function passwordResetEmail(input: { link: string; name: string; email: string }): EmailContent {
  const greeting = input.name ? `Hello ${plain(input.name)},` : 'Hello,';
  const validity = `The link works once, for ${hours(RESET_TOKEN_TTL_MS)} hours.`;
  const ignore = 'If you did not ask for this, ignore this e-mail: your password stays as it is.';
  const request = `Someone asked to reset the password of the Subscope account ${input.email}.`;
  return {
    subject: 'Reset your Subscope password',
    link: input.link,
    text: `${greeting}\n\n${request} To choose a new password, open this link:\n\n${input.link}\n\n${validity} ${ignore}\n`,
    html: layout([escapeHtml(greeting), `${escapeHtml(request)} ${escapeHtml(validity)}`, escapeHtml(ignore)], input.link, 'Choose a new password'),
  };
}

export function invitationEmail(input: { link: string; inviteeName: string; inviterName: string; accountName: string }): EmailContent {
  const inviter = plain(input.inviterName) || 'A colleague';
  const account = plain(input.accountName) || 'their account';
  const greeting = input.inviteeName ? `Hello ${plain(input.inviteeName)},` : 'Hello,';
  const invite = `${inviter} invited you to join ${account} on Subscope, where you will see its subscription reports.`;
  const validity = `The invitation is valid for ${days(INVITATION_TTL_MS)} days.`;
  return {
    subject: `${inviter} invited you to ${account} on Subscope`,
    link: input.link,
    text: `${greeting}\n\n${invite} To accept, choose your password here:\n\n${input.link}\n\n${validity}\n`,
    html: layout([escapeHtml(greeting), escapeHtml(invite), escapeHtml(validity)], input.link, 'Accept the invitation'),
  };
}
