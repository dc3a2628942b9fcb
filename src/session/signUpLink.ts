/** What a sign-up link carries: `?email=` prefills the address, `#ref=` or `?ref=` is the marketing ref. */
export interface SignUpLink {
  email: string;
  marketingRef: string | undefined;
}

/** Reads a sign-up link's search (without '?') and hash (with or without '#'); the hash's ref wins. */
export function readSignUpLink(search: string, hash: string): SignUpLink {
  const query = new URLSearchParams(search);
  const fragment = new URLSearchParams(hash.replace(/^#/, ''));
  const ref = fragment.get('ref') || query.get('ref') || undefined;
  return { email: query.get('email') ?? '', marketingRef: ref };
}
