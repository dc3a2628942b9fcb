import { Anchor } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { Link } from 'wouter';
import { ComingSoon } from '../components/ComingSoon';

export function ResetPasswordRequestPage() {
  return (
    <ComingSoon
      variant="card"
      title="Reset your password"
      icon={IconKey}
      description="Enter your email and we will send you a link to choose a new password."
    >
      <Anchor component={Link} href="/sign_in" size="sm">
        Back to sign in
      </Anchor>
    </ComingSoon>
  );
}
