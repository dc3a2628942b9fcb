import { Anchor } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { Link } from 'wouter';
import { ComingSoon } from '../components/ComingSoon';

export function ResetPasswordPage() {
  return (
    <ComingSoon
      variant="card"
      title="Choose a new password"
      icon={IconLock}
      description="Set a new password for your account with the link from your reset email."
    >
      <Anchor component={Link} href="/sign_in" size="sm">
        Back to sign in
      </Anchor>
    </ComingSoon>
  );
}
