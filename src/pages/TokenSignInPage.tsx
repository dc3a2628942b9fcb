import { IconLogin } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function TokenSignInPage() {
  return (
    <ComingSoon
      variant="card"
      title="Signing you in"
      icon={IconLogin}
      description="Sign in with a one-time link: it continues to Settings, or back to Sign in if the link has expired."
    />
  );
}
